"""This is what you get when the SiLU is applied to the up branch instead of the gate branch: silu(x W_up^T) * (x W_gate^T), the two projections swapped.

Source: ml-explore/mlx-lm pull request #767 (the SwiGLU wrapper in switch_layers.py computed silu(x) * gate instead of silu(gate) * x)

Overrides: swiglu_ffn
"""


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    gate = x @ w_gate.T
    up = x @ w_up.T
    return (gate * _silu(up)) @ w_down.T
