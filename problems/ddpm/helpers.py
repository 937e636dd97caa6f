"""DDPM: the validation helpers, supplied and read-only.

`from helpers import check_pair, check_schedule_args, check_steps, check_table` in your solution (the starter
does); check_number and check_float_tensor are the pieces they are made of."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_number(name, value):
    """TypeError unless a Python int or float (not bool); ValueError unless finite."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")


def check_schedule_args(T, beta_start, beta_end):
    if isinstance(T, bool) or not isinstance(T, int):
        raise TypeError(f"T must be a Python int, got {type(T).__name__}")
    if T < 1:
        raise ValueError(f"T must be >= 1, got {T}")
    check_number("beta_start", beta_start)
    check_number("beta_end", beta_end)
    if not 0 < beta_start <= beta_end < 1:
        raise ValueError(f"need 0 < beta_start <= beta_end < 1, got beta_start={beta_start}, beta_end={beta_end}")


def check_float_tensor(name, t, device=None):
    """TypeError unless a float32/float64 tensor; ValueError unless on `device` (when given) and finite. The device
    comes before the values: a tensor on another device cannot be read here."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    if device is not None and t.device != device:
        raise ValueError(f"{name} must be on the data's device {device}, got {t.device}")
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} must contain only finite values")


def check_pair(names, a, b):
    """Two data tensors of one [N, ...] shape (at least 1-D), dtype and device."""
    check_float_tensor(names[0], a)
    check_float_tensor(names[1], b)
    if b.dtype != a.dtype:
        raise TypeError(f"{names[1]} must have {names[0]}'s dtype {a.dtype}, got {b.dtype}")
    if a.dim() < 1:
        raise ValueError(f"{names[0]} must be [N, ...] with a batch axis, got a 0-d tensor")
    if b.shape != a.shape:
        raise ValueError(f"{names[1]} must have {names[0]}'s shape {tuple(a.shape)}, got {tuple(b.shape)}")
    if b.device != a.device:
        raise ValueError(f"{names[1]} must be on {names[0]}'s device {a.device}, got {b.device}")


def check_steps(t, n, num_steps, device):
    """t: an int64 tensor [N] of zero-based steps in [0, T)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"t must be a torch.Tensor of int64 step indices, got {type(t).__name__}")
    if t.dtype != torch.int64:
        raise TypeError(f"t must hold int64 step indices, got {t.dtype}")
    if t.shape != (n,):
        raise ValueError(f"t must have shape [N] = ({n},), one step per example, got {tuple(t.shape)}")
    if t.device != device:
        raise ValueError(f"t must be on the data's device {device}, got {t.device}")
    if n and (int(t.min()) < 0 or int(t.max()) >= num_steps):
        raise ValueError(f"t must be zero-based steps in [0, {num_steps}), got {t.tolist()}")


def check_table(name, table, device, *, one_allowed):
    """A 1-D, non-empty schedule table with values in (0, 1], or (0, 1) when one_allowed is False."""
    check_float_tensor(name, table, device)
    if table.dim() != 1 or table.shape[0] < 1:
        raise ValueError(f"{name} must be 1-D [T] with T >= 1, got shape {tuple(table.shape)}")
    below_one = (table <= 1) if one_allowed else (table < 1)
    if not ((table > 0) & below_one).all():
        raise ValueError(f"{name} values must lie in (0, 1{']' if one_allowed else ')'}")
