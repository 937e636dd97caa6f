"""Variant (correct): torch.var_mean with correction=0, then the corrected estimate for the running variance."""

import math

import torch

from helpers import check_channel_tensors, check_input, check_number


def _reduced_dims(x):
    return (0,) if x.dim() == 2 else (0, 2, 3)  # every dimension but the channels


def _per_channel(t, x):
    """A [C] tensor shaped to broadcast against x: [1, C] or [1, C, 1, 1]."""
    return t.reshape(1, -1) if x.dim() == 2 else t.reshape(1, -1, 1, 1)


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("momentum", momentum, 0, 1)
    check_number("eps", eps, 0, math.inf, low_open=True)
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
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("eps", eps, 0, math.inf, low_open=True)
    return torch.addcmul(_per_channel(bias, x), x - _per_channel(running_mean, x),
                         _per_channel(weight * torch.rsqrt(running_var + eps), x))
