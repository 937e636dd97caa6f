"""Reference LayerNorm (Ba, Kiros and Hinton, 2016) and RMSNorm (Zhang and Sennrich, 2019) over the last
dimension. Hidden from learners; the checks compare submissions with it."""

import math

import torch

INPUT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _check_x(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in INPUT_DTYPES:
        raise TypeError(f"x must be float16, bfloat16, float32 or float64, got {x.dtype}")
    if x.dim() < 1 or x.shape[-1] < 1:
        raise ValueError(f"x must have a last dimension of size D >= 1, got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")


def _check_affine(name, p, x):
    """weight and bias are None or a [D] tensor of x's dtype and device."""
    if p is None:
        return
    if not isinstance(p, torch.Tensor):
        raise TypeError(f"{name} must be None or a torch.Tensor, got {type(p).__name__}")
    if p.dtype != x.dtype:
        raise TypeError(f"{name} must have x's dtype {x.dtype}, got {p.dtype}")
    if p.device != x.device:
        raise ValueError(f"{name} must be on x's device {x.device}, got {p.device}")
    if tuple(p.shape) != (x.shape[-1],):
        raise ValueError(f"{name} must have shape [D] = [{x.shape[-1]}], got {tuple(p.shape)}")
    if not torch.isfinite(p).all():
        raise ValueError(f"{name} must contain only finite values")


def _check_eps(eps):
    if isinstance(eps, bool) or not isinstance(eps, int | float):
        raise TypeError(f"eps must be a Python float or int, got {type(eps).__name__}")
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps must be finite and > 0, got {eps}")


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
    _check_x(x)
    _check_affine("weight", weight, x)
    _check_affine("bias", bias, x)
    _check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    mean = h.mean(dim=-1, keepdim=True)  # (..., 1)
    centred = h - mean
    variance = (centred * centred).mean(dim=-1, keepdim=True)  # biased: divide by D, not D - 1
    return _affine(centred / torch.sqrt(variance + eps), weight, bias, x.dtype)  # eps inside the square root


def rms_norm(x, weight, eps=1e-6):
    _check_x(x)
    _check_affine("weight", weight, x)
    _check_eps(eps)
    h = x.to(_compute_dtype(x.dtype))
    mean_square = (h * h).mean(dim=-1, keepdim=True)  # (..., 1): no mean is subtracted
    return _affine(h / torch.sqrt(mean_square + eps), weight, None, x.dtype)
