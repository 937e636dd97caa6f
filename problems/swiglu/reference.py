"""Reference solution for the SwiGLU problem (Shazeer, 2020; LLaMA's sizes, Touvron et al., 2023). Trusted:
imported only in the judge's process."""

import torch

from helpers import check_activation_input, check_ffn_inputs, check_hidden_dim_args


def silu(x):
    """SiLU, Swish with beta = 1: x * sigmoid(x), elementwise, any shape."""
    check_activation_input(x)
    return _silu(x)


def _silu(x):
    # torch.sigmoid never overflows: it saturates to exactly 0 and 1, and so does its derivative s (1 - s), so
    # the value and the gradient stay finite at any |x|
    return x * torch.sigmoid(x)


def swiglu_ffn(x, w_gate, w_up, w_down):
    """(SiLU(x W_gate^T) * (x W_up^T)) W_down^T over the last axis of x [..., d_model]; no biases."""
    check_ffn_inputs(x, w_gate, w_up, w_down)
    gate = x @ w_gate.T  # [..., d_ff]: nn.Linear's convention, weights stored [out_features, in_features]
    up = x @ w_up.T  # [..., d_ff]
    hidden = _silu(gate) * up  # the Swish goes on the gate branch only
    return hidden @ w_down.T  # [..., d_model]


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    """LLaMA's d_ff: floor(2/3 * 4 d_model), times ffn_dim_multiplier (floored) if given, rounded UP to a multiple
    of multiple_of."""
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    hidden = (2 * 4 * d_model) // 3  # floor(8 d / 3): the 2/3 keeps three matrices at the cost of two of 4d
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)  # Python float product, truncated, as LLaMA's code does
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)  # ceil to a multiple
