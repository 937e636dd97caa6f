"""Validation for the GAE problem, supplied to every solution (`from helpers import ...`). Each function raises
exactly the errors the contract promises; call them first, then compute."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_float_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def _check_finite(name, t):
    if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


_MISSING = object()


def check_rollout(rewards, values, dones, last_value):
    """gae's rollout: rewards and values [T] or [T, N] (T >= 0 steps, N >= 0 environments), dones of the same
    shape, last_value [] or [N] (the shape of one time step).

    rewards, values and last_value: float32/float64 tensors of one dtype (else TypeError), finite (else ValueError).
    dones: a bool tensor (else TypeError). Shapes or devices that disagree: ValueError.
    """
    _check(rewards, values, dones, last_value)


def check_returns_rollout(rewards, dones, last_value):
    """discounted_returns' rollout: as check_rollout, without values."""
    _check(rewards, _MISSING, dones, last_value)


def _check(rewards, values, dones, last_value):
    floats = [("rewards", rewards)] + ([("values", values)] if values is not _MISSING else []) + [
        ("last_value", last_value)]
    for name, t in floats:
        _check_float_tensor(name, t)
    for name, t in floats[1:]:
        if t.dtype != rewards.dtype:
            raise TypeError(f"{name} must have rewards' dtype {rewards.dtype}, got {t.dtype}")
    if not isinstance(dones, torch.Tensor):
        raise TypeError(f"dones must be a torch.Tensor, got {type(dones).__name__}")
    if dones.dtype != torch.bool:
        raise TypeError(f"dones must be a bool tensor (True where the episode ended at that step), got {dones.dtype}")
    if rewards.dim() not in (1, 2):
        raise ValueError(f"rewards must be [T] or [T, N] (time first), got shape {tuple(rewards.shape)}")
    for name, t in [*floats[1:-1], ("dones", dones)]:
        if tuple(t.shape) != tuple(rewards.shape):
            raise ValueError(f"{name} must have rewards' shape {tuple(rewards.shape)}, got {tuple(t.shape)}")
    step_shape = tuple(rewards.shape[1:])
    if tuple(last_value.shape) != step_shape:
        raise ValueError(f"last_value must have the shape of one time step {step_shape}, got "
                         f"{tuple(last_value.shape)}")
    for name, t in [*floats[1:], ("dones", dones)]:
        if t.device != rewards.device:
            raise ValueError(f"{name} is on {t.device} but rewards is on {rewards.device}")
    for name, t in floats:
        _check_finite(name, t)


def check_factor(name, value):
    """gamma or lam: a Python int or float (not bool) in [0, 1]. Returns it as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(f"{name} must lie in [0, 1], got {value}")
    return float(value)
