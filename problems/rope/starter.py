"""Rotary position embedding (Su et al., 2021, RoFormer) with the paper's interleaved pairs. Implement
apply_rotary below; the helpers check the contract for you."""

import math

import torch


def _check_x(x):
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


def _check_positions(positions, x):
    """Raise TypeError unless positions is an int64 tensor, ValueError unless it has shape [L]."""
    if not isinstance(positions, torch.Tensor):
        raise TypeError(f"positions must be a torch.Tensor, got {type(positions).__name__}")
    if positions.dtype != torch.int64:
        raise TypeError(f"positions must be int64, got {positions.dtype}")
    if positions.device != x.device:
        raise ValueError(f"positions must be on x's device {x.device}, got {positions.device}")
    if tuple(positions.shape) != (x.shape[-2],):
        raise ValueError(f"positions must have shape [L] = [{x.shape[-2]}], got {tuple(positions.shape)}")


def _check_base(base):
    """Raise TypeError unless base is a Python int/float (not bool), ValueError unless finite and > 0."""
    if isinstance(base, bool) or not isinstance(base, int | float):
        raise TypeError(f"base must be a Python float or int, got {type(base).__name__}")
    if not math.isfinite(base) or base <= 0:
        raise ValueError(f"base must be finite and > 0, got {base}")


def apply_rotary(x, positions, base=10000.0):
    """Rotate each feature pair (x[..., 2i], x[..., 2i + 1]) at position p by the angle p * base^(-2i / D).

    x: [..., L, D] float32/float64 with D even; positions: int64 [L]. Returns a new tensor like x.
    """
    _check_x(x)
    _check_positions(positions, x)
    _check_base(base)
    # 1. the D/2 frequencies base^(-2i/D) and the [L, D/2] angles positions * frequency, in float64
    # 2. cos and sin of the angles, rounded to x.dtype
    # 3. rotate each pair (x[..., 0::2], x[..., 1::2]) counter-clockwise and interleave the results back
    raise NotImplementedError("apply_rotary: follow steps 1-3 above")
