"""rms_norm centres x first, which turns it back into LayerNorm without a bias.

Overrides: rms_norm
"""

import torch


def rms_norm(x, weight, eps=1e-6):
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    h = h - h.mean(dim=-1, keepdim=True)
    mean_square = (h * h).mean(dim=-1, keepdim=True)
    return _affine(h / torch.sqrt(mean_square + eps), weight, None, x.dtype)
