"""layer_norm's eps defaults to 1e-12 (BERT's setting) instead of 1e-5.

Overrides: layer_norm
Source: mukang98/Own_Transformer, models/layers/layer_norm.py (LayerNorm(d_model, eps = 1e-12))
"""

import torch


def layer_norm(x, weight, bias, eps=1e-12):
    check_x(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    mean = h.mean(dim=-1, keepdim=True)
    centred = h - mean
    variance = (centred * centred).mean(dim=-1, keepdim=True)
    return _affine(centred / torch.sqrt(variance + eps), weight, bias, x.dtype)
