"""Rotary position embedding (RoPE): the validation helpers, supplied and read-only.

`from helpers import check_base, check_positions, check_x` in your solution."""

import math

import torch


def check_x(x):
    """Raise TypeError / ValueError unless x is a finite float32/float64 [..., L, D] tensor with D even."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if x.dim() < 2:
        raise ValueError(f"x must be [..., L, D], got shape {tuple(x.shape)}")
    if x.shape[-1] < 2 or x.shape[-1] % 2:
        raise ValueError(f"the feature size D must be even and >= 2 (features rotate in pairs), got {x.shape[-1]}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")


def check_positions(positions, x):
    """Raise TypeError unless positions is an int64 tensor, ValueError unless it has shape [L]."""
    if not isinstance(positions, torch.Tensor):
        raise TypeError(f"positions must be a torch.Tensor, got {type(positions).__name__}")
    if positions.dtype != torch.int64:
        raise TypeError(f"positions must be int64, got {positions.dtype}")
    if positions.device != x.device:
        raise ValueError(f"positions must be on x's device {x.device}, got {positions.device}")
    if tuple(positions.shape) != (x.shape[-2],):
        raise ValueError(f"positions must have shape [L] = [{x.shape[-2]}], got {tuple(positions.shape)}")


def check_base(base):
    """Raise TypeError unless base is a Python int/float (not bool), ValueError unless finite and > 0."""
    if isinstance(base, bool) or not isinstance(base, int | float):
        raise TypeError(f"base must be a Python float or int, got {type(base).__name__}")
    if not math.isfinite(base) or base <= 0:
        raise ValueError(f"base must be finite and > 0, got {base}")
