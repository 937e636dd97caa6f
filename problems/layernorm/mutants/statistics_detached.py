"""The root mean square is detached, so the gradient ignores how it depends on x.

Overrides: rms_norm
"""

import torch


def rms_norm(x, weight, eps=1e-6):
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    rms = torch.sqrt((h * h).mean(dim=-1, keepdim=True) + eps).detach()
    return _affine(h / rms, weight, None, x.dtype)
