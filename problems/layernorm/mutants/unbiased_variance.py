"""The variance is unbiased: x.var() divides by D - 1 instead of D.

Overrides: layer_norm
Source: LaoHe016/DCD-Net-for-Contactless-blood-oxygen-estimation, DCD-Net/third-step_DCD-Net/utils/layer_norm.py (x.std(-1, keepdim=True), which divides by D - 1)
"""

import torch


def layer_norm(x, weight, bias, eps=1e-5):
    check_x(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    mean = h.mean(dim=-1, keepdim=True)
    variance = h.var(dim=-1, keepdim=True) if h.shape[-1] > 1 else torch.zeros_like(mean)
    return _affine((h - mean) / torch.sqrt(variance + eps), weight, bias, x.dtype)
