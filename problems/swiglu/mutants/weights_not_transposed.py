"""This is what you get when the weights are used as the paper writes them, x W with W [d_model, d_ff], while they are stored [out_features, in_features] as in nn.Linear: x @ w_gate instead of x @ w_gate.T.

Overrides: swiglu_ffn
"""


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    gate = x @ w_gate
    up = x @ w_up
    return (_silu(gate) * up) @ w_down
