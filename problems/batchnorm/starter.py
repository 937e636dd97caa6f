"""Batch normalisation. Implement batch_norm_train and batch_norm_eval below; the helpers check the contract."""

import math

import torch


def _check_input(x):
    """TypeError unless x is a float32/float64 tensor; ValueError unless it is [N, C] or [N, C, H, W], non-empty,
    finite."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if x.dim() not in (2, 4):
        raise ValueError(f"x must be [N, C] or [N, C, H, W], got shape {tuple(x.shape)}")
    if x.shape[1] < 1 or x.numel() == 0:
        raise ValueError(f"x must have at least one channel and one value per channel, got {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")


def _check_channel_tensors(x, running_mean, running_var, weight, bias):
    """TypeError unless the four are tensors of x's dtype; ValueError unless each is [C] on x's device, finite,
    and running_var >= 0."""
    channels = x.shape[1]
    named = (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias))
    for name, tensor in named:
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if tensor.dtype != x.dtype:
            raise TypeError(f"{name} must have x's dtype {x.dtype}, got {tensor.dtype}")
        if tensor.shape != (channels,):
            raise ValueError(f"{name} must have shape [C] = ({channels},), got {tuple(tensor.shape)}")
        if tensor.device != x.device:
            raise ValueError(f"{name} must be on x's device {x.device}, got {tensor.device}")
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{name} must contain only finite values")
    if (running_var < 0).any():
        raise ValueError("running_var is a variance and cannot be negative")


def _check_number(name, value, low, high, *, low_open=False):
    """TypeError unless value is a Python int/float (not bool); ValueError unless finite and in the range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(value) or value < low or value > high or (low_open and value == low):
        raise ValueError(f"{name} must be in {'(' if low_open else '['}{low}, {high}], got {value}")


def _reduced_dims(x):
    return (0,) if x.dim() == 2 else (0, 2, 3)  # every dimension but the channels


def _per_channel(t, x):
    """A [C] tensor shaped to broadcast against x: [1, C] or [1, C, 1, 1]."""
    return t.reshape(1, -1) if x.dim() == 2 else t.reshape(1, -1, 1, 1)


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    """Training mode. Returns (y, new_running_mean, new_running_var).

    x: [N, C] or [N, C, H, W]; the others [C]. Statistics over every dimension but C (see _reduced_dims).
    """
    _check_input(x)
    _check_channel_tensors(x, running_mean, running_var, weight, bias)
    _check_number("momentum", momentum, 0, 1)
    _check_number("eps", eps, 0, math.inf, low_open=True)
    # 1. refuse a single value per channel (N * H * W = 1) with ValueError
    # 2. per-channel mean and biased variance (two passes: the mean of (x - mean)^2)
    # 3. y = (x - mean) / sqrt(var + eps) * weight + bias, broadcast with _per_channel
    # 4. new running stats (no grad): (1 - momentum) * old + momentum * (mean, unbiased variance m / (m - 1) * var)
    raise NotImplementedError("batch_norm_train: follow steps 1-4 above")


def batch_norm_eval(x, running_mean, running_var, weight, bias, eps=1e-5):
    """Evaluation mode: normalise with the running statistics. Returns y."""
    _check_input(x)
    _check_channel_tensors(x, running_mean, running_var, weight, bias)
    _check_number("eps", eps, 0, math.inf, low_open=True)
    raise NotImplementedError("batch_norm_eval: (x - running_mean) / sqrt(running_var + eps) * weight + bias")
