"""This is what you get when the gate goes through a sigmoid instead of SiLU: sigmoid(x W_gate^T) * (x W_up^T) is the original GLU of Dauphin et al., not SwiGLU.

Overrides: swiglu_ffn
"""

import torch


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    gate = x @ w_gate.T
    up = x @ w_up.T
    return (torch.sigmoid(gate) * up) @ w_down.T
