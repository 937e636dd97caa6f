"""This is what you get when x is flattened to [N, d_model] to multiply and never reshaped back: leading dimensions are lost (and a single vector becomes [1, d_model]).

Overrides: swiglu_ffn
"""


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    flat = x.reshape(-1, x.shape[-1])
    return (_silu(flat @ w_gate.T) * (flat @ w_up.T)) @ w_down.T
