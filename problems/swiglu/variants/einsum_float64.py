"""einsum in float64 inside, cast back; the sigmoid from tanh; the hidden size with negative floor division."""

import math

import torch

from helpers import check_activation_input, check_ffn_inputs, check_hidden_dim_args


def _silu(x):
    # sigmoid(x) = (1 + tanh(x / 2)) / 2: tanh saturates at +-1, never overflows
    return x * 0.5 * (1.0 + torch.tanh(0.5 * x))


def silu(x):
    check_activation_input(x)
    return _silu(x.double()).to(x.dtype)


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    x64, g64, u64, d64 = (t.double() for t in (x, w_gate, w_up, w_down))
    gate = torch.einsum("...d,hd->...h", x64, g64)
    up = torch.einsum("...d,hd->...h", x64, u64)
    out = torch.einsum("...h,dh->...d", _silu(gate) * up, d64)
    return out.to(x.dtype)


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = math.floor(8 * d_model / 3)
    if ffn_dim_multiplier is not None:
        hidden = math.floor(hidden * ffn_dim_multiplier)
    return -(-hidden // multiple_of) * multiple_of
