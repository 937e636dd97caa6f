"""rms_norm's eps defaults to 1e-8 instead of 1e-6.

Overrides: rms_norm
Source: ajayspatil7/zephyra, zephyra/layers/normalization.py (RMSNorm(d_model, eps=1e-8))
"""

import torch


def rms_norm(x, weight, eps=1e-8):
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    mean_square = (h * h).mean(dim=-1, keepdim=True)
    return _affine(h / torch.sqrt(mean_square + eps), weight, None, x.dtype)
