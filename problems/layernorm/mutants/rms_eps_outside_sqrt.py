"""rms_norm adds eps to the root mean square, x / (sqrt(mean(x^2)) + eps).

Overrides: rms_norm
"""

import torch


def rms_norm(x, weight, eps=1e-6):
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    rms = torch.sqrt((h * h).mean(dim=-1, keepdim=True))
    return _affine(h / (rms + eps), weight, None, x.dtype)
