"""The mean is taken without keepdim, so it broadcasts along the wrong axis (it only fits square inputs).

Overrides: layer_norm
"""

import torch


def layer_norm(x, weight, bias, eps=1e-5):
    check_x(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    centred = h - h.mean(dim=-1)
    variance = (centred * centred).mean(dim=-1, keepdim=True)
    return _affine(centred / torch.sqrt(variance + eps), weight, bias, x.dtype)
