"""Variant: torch.var_mean with correction=0, rsqrt, and addcmul for the affine step."""

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
    variance, mean = torch.var_mean(h, dim=-1, keepdim=True, correction=0)
    normalised = (h - mean) * torch.rsqrt(variance + eps)
    g = torch.ones_like(normalised[..., 0, None]) if weight is None else weight.to(h.dtype)
    b = torch.zeros_like(normalised[..., 0, None]) if bias is None else bias.to(h.dtype)
    return torch.addcmul(b, normalised, g).to(x.dtype)


def rms_norm(x, weight, eps=1e-6):
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    normalised = h * torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (normalised if weight is None else normalised * weight.to(h.dtype)).to(x.dtype)
