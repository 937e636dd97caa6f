"""SwiGLU (Shazeer, 2020) and LLaMA's hidden size (Touvron et al., 2023).

Implement the three functions below. The validation helpers are supplied in helpers.py (shown read-only under
the editor): each function already calls them; keep those calls.
"""

import torch

from helpers import check_activation_input, check_ffn_inputs, check_hidden_dim_args


def silu(x):
    """SiLU (Swish with beta = 1): x * sigmoid(x), elementwise, for a float tensor of any shape. The value and
    the gradient must stay finite and correct for any finite x (e.g. +-1e4, in float32 and float64)."""
    check_activation_input(x)
    raise NotImplementedError("silu: x times a sigmoid that saturates instead of overflowing")


def swiglu_ffn(x, w_gate, w_up, w_down):
    """(SiLU(x W_gate^T) * (x W_up^T)) W_down^T for x [..., d_model]; w_gate, w_up [d_ff, d_model] and w_down
    [d_model, d_ff] in nn.Linear's [out_features, in_features] layout; no biases. Returns [..., d_model]."""
    check_ffn_inputs(x, w_gate, w_up, w_down)
    raise NotImplementedError("swiglu_ffn: gate and up projections, SiLU on the gate, product, down projection")


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    """LLaMA's d_ff as a Python int: h = floor(2/3 * 4 d_model); h = int(ffn_dim_multiplier * h) if a multiplier
    is given; then h rounded up to a multiple of multiple_of."""
    check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier)
    raise NotImplementedError("llama_hidden_dim: two thirds of 4 d_model, the multiplier, then round up")
