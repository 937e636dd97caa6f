"""LayerNorm and RMSNorm: the validation helpers, supplied and read-only.

`from helpers import check_affine, check_eps, check_x` in your solution."""

import math

import torch

INPUT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def check_x(x):
    """Raise TypeError / ValueError unless x is a finite [..., D] tensor (D >= 1) of a supported dtype."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in INPUT_DTYPES:
        raise TypeError(f"x must be float16, bfloat16, float32 or float64, got {x.dtype}")
    if x.dim() < 1 or x.shape[-1] < 1:
        raise ValueError(f"x must have a last dimension of size D >= 1, got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")


def check_affine(name, p, x):
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


def check_eps(eps):
    """Raise TypeError unless eps is a Python int/float (not bool), ValueError unless finite and > 0."""
    if isinstance(eps, bool) or not isinstance(eps, int | float):
        raise TypeError(f"eps must be a Python float or int, got {type(eps).__name__}")
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps must be finite and > 0, got {eps}")
