"""This is what you get when the hidden activations are computed in float32 (a mixed-precision habit, .float() before the SiLU): a float64 block then carries float32's rounding.

Overrides: swiglu_ffn
"""


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    gate = (x @ w_gate.T).float()
    up = (x @ w_up.T).float()
    return (_silu(gate) * up).to(x.dtype) @ w_down.T
