"""rms_norm divides by the L2 norm of x, forgetting to divide the sum of squares by D.

Overrides: rms_norm
"""

import torch


def rms_norm(x, weight, eps=1e-6):
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    return _affine(h / torch.sqrt((h * h).sum(dim=-1, keepdim=True) + eps), weight, None, x.dtype)
