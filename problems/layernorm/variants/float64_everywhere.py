"""Variant: every dtype is computed in float64 and rounded once to the input dtype; einsum for the sums."""

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
    h = x.double()
    d = h.shape[-1]
    mean = torch.einsum("...d->...", h)[..., None] / d
    centred = h - mean
    variance = torch.einsum("...d,...d->...", centred, centred)[..., None] / d
    out = centred / (variance + eps).sqrt()
    if weight is not None:
        out = out * weight.double()
    if bias is not None:
        out = out + bias.double()
    return out.to(x.dtype)


def rms_norm(x, weight, eps=1e-6):
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    h = x.double()
    mean_square = torch.einsum("...d,...d->...", h, h)[..., None] / h.shape[-1]
    out = h / (mean_square + eps).sqrt()
    return (out if weight is None else out * weight.double()).to(x.dtype)
