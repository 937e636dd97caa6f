"""Reference LayerNorm (Ba, Kiros and Hinton, 2016) and RMSNorm (Zhang and Sennrich, 2019) over the last
dimension. The checks compare submissions with it."""

import torch

from helpers import check_affine, check_eps, check_x


def _compute_dtype(dtype):
    """float16 and bfloat16 are computed in float32: their squares overflow (65504 is float16's largest)."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def _affine(normalised, weight, bias, dtype):
    if weight is not None:
        normalised = normalised * weight.to(normalised.dtype)  # (..., D) * (D,)
    if bias is not None:
        normalised = normalised + bias.to(normalised.dtype)
    return normalised.to(dtype)


def layer_norm(x, weight, bias, eps=1e-5):
    check_x(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    mean = h.mean(dim=-1, keepdim=True)  # (..., 1)
    centred = h - mean
    variance = (centred * centred).mean(dim=-1, keepdim=True)  # biased: divide by D, not D - 1
    return _affine(centred / torch.sqrt(variance + eps), weight, bias, x.dtype)  # eps inside the square root


def rms_norm(x, weight, eps=1e-6):
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    mean_square = (h * h).mean(dim=-1, keepdim=True)  # (..., 1): no mean is subtracted
    return _affine(h / torch.sqrt(mean_square + eps), weight, None, x.dtype)
