"""This is what you get when the up projection is left out: silu(x W_gate^T) W_down^T is a plain SiLU feed-forward block, with no gating at all.

Source: google-research/timesfm issue #493 (the "swiglu" activation was mapped to F.silu, so the model ran a plain SiLU feed-forward block)

Overrides: swiglu_ffn
"""


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    return _silu(x @ w_gate.T) @ w_down.T
