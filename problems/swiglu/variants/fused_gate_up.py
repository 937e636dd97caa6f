"""One fused [2 d_ff, d_model] projection split in two (as inference engines store gate_proj and up_proj), F.linear,
SiLU through logsigmoid, and the hidden size rounded up with a loop."""

import torch
import torch.nn.functional as F

from helpers import check_activation_input, check_ffn_inputs, check_hidden_dim_args


def _silu(x):
    # log sigmoid(x) = -softplus(-x) is stable at both ends; exp of a non-positive number never overflows
    return x * torch.exp(F.logsigmoid(x))


def silu(x):
    check_activation_input(x)
    return _silu(x)


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    fused = F.linear(x, torch.cat([w_gate, w_up], dim=0))  # [..., 2 d_ff]
    gate, up = fused.chunk(2, dim=-1)
    return F.linear(_silu(gate) * up, w_down)


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = int(2 * (4 * d_model) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    while hidden % multiple_of:
        hidden += 1
    return hidden
