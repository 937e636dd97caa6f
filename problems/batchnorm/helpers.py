"""Batch normalisation's validation helpers, supplied and read-only:
`from helpers import check_channel_tensors, check_input, check_number`."""

import math

import torch


def check_input(x):
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


def check_channel_tensors(x, running_mean, running_var, weight, bias):
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


def check_number(name, value, low, high, *, low_open=False):
    """TypeError unless value is a Python int/float (not bool); ValueError unless finite and in the range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(value) or value < low or value > high or (low_open and value == low):
        raise ValueError(f"{name} must be in {'(' if low_open else '['}{low}, {high}], got {value}")
