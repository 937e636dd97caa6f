"""This is what you get when the gate goes through GELU instead of SiLU: that is GEGLU, the neighbouring variant of the paper (T5 v1.1, Gemma), not SwiGLU.

Overrides: swiglu_ffn
"""

import torch


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    gate = x @ w_gate.T
    up = x @ w_up.T
    return (torch.nn.functional.gelu(gate) * up) @ w_down.T
