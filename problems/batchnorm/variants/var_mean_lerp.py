"""Variant (correct): torch.var_mean with correction=0, then the corrected estimate for the running variance."""

import math

import torch


def _check_input(x):
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
    _check_input(x)
    _check_channel_tensors(x, running_mean, running_var, weight, bias)
    _check_number("momentum", momentum, 0, 1)
    _check_number("eps", eps, 0, math.inf, low_open=True)
    dims = _reduced_dims(x)
    count = x.numel() // x.shape[1]
    if count < 2:
        raise ValueError("training needs more than one value per channel")
    var, mean = torch.var_mean(x, dim=dims, correction=0)
    y = (x - _per_channel(mean, x)) * torch.rsqrt(_per_channel(var, x) + eps) * _per_channel(weight, x) \
        + _per_channel(bias, x)
    with torch.no_grad():
        unbiased = torch.var(x.detach(), dim=dims, correction=1)
        new_mean = torch.lerp(running_mean.detach(), mean.detach(), momentum)
        new_var = torch.lerp(running_var.detach(), unbiased, momentum)
    return y, new_mean, new_var


def batch_norm_eval(x, running_mean, running_var, weight, bias, eps=1e-5):
    _check_input(x)
    _check_channel_tensors(x, running_mean, running_var, weight, bias)
    _check_number("eps", eps, 0, math.inf, low_open=True)
    return torch.addcmul(_per_channel(bias, x), x - _per_channel(running_mean, x),
                         _per_channel(weight * torch.rsqrt(running_var + eps), x))
