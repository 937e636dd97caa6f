"""This is what you get when the SiLU is applied to the product of the two branches, silu(x W_gate^T * x W_up^T), instead of to the gate before multiplying.

Source: Nijikadesu/breakdown-minimind issue #3 (the notebook's feed-forward computed w2(silu(w1(x) * w3(x))) instead of w2(silu(w1(x)) * w3(x)))

Overrides: swiglu_ffn
"""


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    gate = x @ w_gate.T
    up = x @ w_up.T
    return _silu(gate * up) @ w_down.T
