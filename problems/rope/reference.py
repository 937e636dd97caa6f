"""Reference rotary position embedding (Su et al., 2021, RoFormer), interleaved pairs. Hidden from learners; the
checks compare submissions with it."""

import math

import torch


def _check_x(x):
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
    if not isinstance(positions, torch.Tensor):
        raise TypeError(f"positions must be a torch.Tensor, got {type(positions).__name__}")
    if positions.dtype != torch.int64:
        raise TypeError(f"positions must be int64, got {positions.dtype}")
    if positions.device != x.device:
        raise ValueError(f"positions must be on x's device {x.device}, got {positions.device}")
    if tuple(positions.shape) != (x.shape[-2],):
        raise ValueError(f"positions must have shape [L] = [{x.shape[-2]}], got {tuple(positions.shape)}")


def _check_base(base):
    if isinstance(base, bool) or not isinstance(base, int | float):
        raise TypeError(f"base must be a Python float or int, got {type(base).__name__}")
    if not math.isfinite(base) or base <= 0:
        raise ValueError(f"base must be finite and > 0, got {base}")


def _cos_sin(positions, d, base, dtype):
    """cos and sin of the angles position * base^(-2i/D), each (L, D/2). The angles are computed in float64 for
    every dtype: a position of 1e5 times a frequency near 1 carries ~6e-3 rad of float32 rounding."""
    pair = torch.arange(d // 2, dtype=torch.float64, device=positions.device)  # i = 0 .. D/2 - 1
    frequencies = base ** (-2.0 * pair / d)  # (D/2,): theta_i
    angles = positions.to(torch.float64)[:, None] * frequencies[None, :]  # (L, 1) x (1, D/2) -> (L, D/2)
    return torch.cos(angles).to(dtype), torch.sin(angles).to(dtype)


def apply_rotary(x, positions, base=10000.0):
    _check_x(x)
    _check_positions(positions, x)
    _check_base(base)
    cos, sin = _cos_sin(positions, x.shape[-1], base, x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., L, D/2): the pairs (x_2i, x_2i+1)
    rotated_even = even * cos - odd * sin  # a counter-clockwise rotation of each pair by its angle
    rotated_odd = even * sin + odd * cos
    return torch.stack((rotated_even, rotated_odd), dim=-1).flatten(-2)  # interleave back: (..., L, D)
