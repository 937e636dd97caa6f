"""This is what you get when only the down projection is applied untransposed: hidden @ w_down instead of hidden @ w_down.T (w_down is [d_model, d_ff]).

Overrides: swiglu_ffn
"""


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    gate = x @ w_gate.T
    up = x @ w_up.T
    return (_silu(gate) * up) @ w_down
