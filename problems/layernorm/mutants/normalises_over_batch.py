"""The statistics are taken over the batch dimension (dim 0), as BatchNorm does, instead of the last one.

Overrides: layer_norm
"""

import torch


def layer_norm(x, weight, bias, eps=1e-5):
    check_x(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    dim = 0 if h.dim() > 1 else -1
    mean = h.mean(dim=dim, keepdim=True)
    centred = h - mean
    variance = (centred * centred).mean(dim=dim, keepdim=True)
    return _affine(centred / torch.sqrt(variance + eps), weight, bias, x.dtype)
