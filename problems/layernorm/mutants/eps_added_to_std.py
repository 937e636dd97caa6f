"""eps is added to the standard deviation, (x - mean) / (std + eps), instead of inside the square root.

Overrides: layer_norm
Source: EricSteinberger/DREAM, PokerRL/rl/neural/LayerNorm.py (self.a * (x - mean) / (std + self.eps) + self.b)
"""

import torch


def layer_norm(x, weight, bias, eps=1e-5):
    check_x(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    mean = h.mean(dim=-1, keepdim=True)
    std = ((h - mean) ** 2).mean(dim=-1, keepdim=True).sqrt()
    return _affine((h - mean) / (std + eps), weight, bias, x.dtype)
