"""Variant: one vector at a time with Python sums, then stacked back into shape."""

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


def _normalise_vector(v, centre, eps):
    """v: [D] in the compute dtype."""
    d = v.shape[0]
    mean = sum(v[i] for i in range(d)) / d if centre else 0.0
    deviations = [v[i] - mean for i in range(d)]
    spread = sum(dev * dev for dev in deviations) / d
    return torch.stack(deviations) / torch.sqrt(spread + eps)


def _rows(x, centre, eps):
    h = x.to(_compute_dtype(x.dtype))
    flat = h.reshape(-1, h.shape[-1])
    if flat.shape[0] == 0:
        return flat.reshape(h.shape) * 1
    return torch.stack([_normalise_vector(flat[r], centre, eps) for r in range(flat.shape[0])]).reshape(h.shape)


def layer_norm(x, weight, bias, eps=1e-5):
    check_x(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    return _affine(_rows(x, True, eps), weight, bias, x.dtype)


def rms_norm(x, weight, eps=1e-6):
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    return _affine(_rows(x, False, eps), weight, None, x.dtype)
