"""Validation for the REINFORCE problem, supplied to every solution (`from helpers import ...`). Each function
raises exactly the errors the contract promises (TypeError for the wrong kind of value or dtype, ValueError for
a wrong shape or an out-of-range value); call it first, then compute."""

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


def _check_unit_interval(name, value):
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python float, got {type(value).__name__}")
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value}")


def check_rewards(rewards, gamma):
    """rewards: a float32/float64 tensor [..., T] with at least one dimension (T may be 0), finite; gamma: a
    Python float (or int) in [0, 1]."""
    _check_float_tensor("rewards", rewards)
    if rewards.dim() < 1:
        raise ValueError("rewards must have at least one dimension: [..., T], time on the last axis")
    _check_finite("rewards", rewards)
    _check_unit_interval("gamma", gamma)


def check_loss_inputs(log_probs, returns, baseline):
    """log_probs, returns and baseline (None or a tensor): float32/float64 tensors of one dtype, one shape and one
    device, with finite values."""
    tensors = [("log_probs", log_probs), ("returns", returns)]
    if baseline is not None:
        tensors.append(("baseline", baseline))
    for name, t in tensors:
        _check_float_tensor(name, t)
    for name, t in tensors[1:]:
        if t.dtype != log_probs.dtype:
            raise TypeError(f"{name} must have log_probs' dtype {log_probs.dtype}, got {t.dtype}")
    for name, t in tensors[1:]:
        if t.shape != log_probs.shape:
            raise ValueError(f"{name} must have log_probs' shape {tuple(log_probs.shape)}, got {tuple(t.shape)} "
                             "(expand a scalar baseline with baseline.expand_as(returns))")
        if t.device != log_probs.device:
            raise ValueError(f"{name} must be on log_probs' device {log_probs.device}, got {t.device}")
    for name, t in tensors:
        _check_finite(name, t)


def check_baseline_inputs(baseline, returns, momentum):
    """baseline: a 0-d float32/float64 tensor; returns: a tensor of baseline's dtype and device, any shape (empty
    included); both finite. momentum: a Python float (or int) in [0, 1]."""
    _check_float_tensor("baseline", baseline)
    _check_float_tensor("returns", returns)
    if returns.dtype != baseline.dtype:
        raise TypeError(f"returns must have baseline's dtype {baseline.dtype}, got {returns.dtype}")
    if baseline.dim() != 0:
        raise ValueError(f"baseline must be a 0-d tensor (one number), got shape {tuple(baseline.shape)}")
    if returns.device != baseline.device:
        raise ValueError(f"returns must be on baseline's device {baseline.device}, got {returns.device}")
    _check_finite("baseline", baseline)
    _check_finite("returns", returns)
    _check_unit_interval("momentum", momentum)
