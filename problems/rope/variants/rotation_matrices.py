"""Variant: an explicit 2 x 2 rotation matrix per position and pair, applied with einsum in float64."""

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


def apply_rotary(x, positions, base=10000.0):
    _check_x(x)
    _check_positions(positions, x)
    _check_base(base)
    d = x.shape[-1]
    angles = positions.double()[:, None] * base ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)
    c, s = torch.cos(angles), torch.sin(angles)
    rotation = torch.stack((torch.stack((c, -s), dim=-1), torch.stack((s, c), dim=-1)), dim=-2)  # (L, D/2, 2, 2)
    pairs = x.double().reshape(*x.shape[:-1], d // 2, 2)
    return torch.einsum("lpij,...lpj->...lpi", rotation, pairs).reshape(x.shape).to(x.dtype)
