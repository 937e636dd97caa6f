"""Reference batch normalisation, training and evaluation (Ioffe & Szegedy, 2015)."""

import math

import torch

from helpers import check_channel_tensors, check_input, check_number


def _reduced_dims(x):
    return (0,) if x.dim() == 2 else (0, 2, 3)  # every dimension but the channels


def _per_channel(t, x):
    """A [C] tensor shaped to broadcast against x: [1, C] or [1, C, 1, 1]."""
    return t.reshape(1, -1) if x.dim() == 2 else t.reshape(1, -1, 1, 1)


def _centre(x, dims):
    """(mean, centred): the per-channel batch mean, (C,), and x minus it, by shifted two passes.

    One value of each channel is subtracted first, so a constant channel is exactly 0 (a float mean of equal values
    is not always that value), then the remainder is centred: no cancellation for inputs far from 0. The shift is a
    constant: x - shift - mean(x - shift) is x - mean(x) whatever it is, gradients included.
    """
    shift = x.detach()[:1] if x.dim() == 2 else x.detach()[:1, :, :1, :1]  # [1, C] or [1, C, 1, 1]
    shifted = x - shift
    shifted_mean = shifted.mean(dim=dims)  # (C,)
    return shift.reshape(-1) + shifted_mean, shifted - _per_channel(shifted_mean, x)


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("momentum", momentum, 0, 1)
    check_number("eps", eps, 0, math.inf, low_open=True)
    count = x.numel() // x.shape[1]  # N * H * W values per channel
    if count < 2:
        raise ValueError("training needs more than one value per channel (N * H * W > 1): the unbiased variance "
                         "of a single value is undefined")
    dims = _reduced_dims(x)
    mean, centred = _centre(x, dims)  # (C,) and x's shape; a constant channel is exactly 0
    var = (centred * centred).mean(dim=dims)  # (C,) biased: divide by the count, used to normalise
    y = centred / torch.sqrt(_per_channel(var, x) + eps) * _per_channel(weight, x) + _per_channel(bias, x)
    with torch.no_grad():  # the running statistics are state, not part of the graph
        unbiased = var.detach() * (count / (count - 1))  # Bessel's correction for the estimate of the population
        new_mean = (1 - momentum) * running_mean.detach() + momentum * mean.detach()
        new_var = (1 - momentum) * running_var.detach() + momentum * unbiased
    return y, new_mean, new_var


def batch_norm_eval(x, running_mean, running_var, weight, bias, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("eps", eps, 0, math.inf, low_open=True)
    scale = _per_channel(weight, x) / torch.sqrt(_per_channel(running_var, x) + eps)
    return (x - _per_channel(running_mean, x)) * scale + _per_channel(bias, x)
