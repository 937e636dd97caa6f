"""x is centred in place (x.sub_), so the caller's tensor changes.

Overrides: layer_norm
"""

import torch


def layer_norm(x, weight, bias, eps=1e-5):
    check_x(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    if not h.requires_grad:
        h = h.sub_(h.mean(dim=-1, keepdim=True))
    else:
        h = h - h.mean(dim=-1, keepdim=True)
    variance = (h * h).mean(dim=-1, keepdim=True)
    return _affine(h / torch.sqrt(variance + eps), weight, bias, x.dtype)
