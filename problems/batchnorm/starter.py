"""Batch normalisation. Implement batch_norm_train and batch_norm_eval below; the helpers of helpers.py
(read-only under the editor) check the contract."""

import math

import torch

from helpers import check_channel_tensors, check_input, check_number


def _reduced_dims(x):
    return (0,) if x.dim() == 2 else (0, 2, 3)  # every dimension but the channels


def _per_channel(t, x):
    """A [C] tensor shaped to broadcast against x: [1, C] or [1, C, 1, 1]."""
    return t.reshape(1, -1) if x.dim() == 2 else t.reshape(1, -1, 1, 1)


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    """Training mode. Returns (y, new_running_mean, new_running_var).

    x: [N, C] or [N, C, H, W]; the others [C]. Statistics over every dimension but C (see _reduced_dims).
    """
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("momentum", momentum, 0, 1)
    check_number("eps", eps, 0, math.inf, low_open=True)
    # 1. refuse a single value per channel (N * H * W = 1) with ValueError
    # 2. per-channel mean and biased variance (two passes: the mean of (x - mean)^2), each channel shifted by one
    #    of its values first, so that a constant channel centres to exactly 0
    # 3. y = (x - mean) / sqrt(var + eps) * weight + bias, broadcast with _per_channel
    # 4. new running stats (no grad): (1 - momentum) * old + momentum * (mean, unbiased variance m / (m - 1) * var)
    raise NotImplementedError("batch_norm_train: follow steps 1-4 above")


def batch_norm_eval(x, running_mean, running_var, weight, bias, eps=1e-5):
    """Evaluation mode: normalise with the running statistics. Returns y."""
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("eps", eps, 0, math.inf, low_open=True)
    raise NotImplementedError("batch_norm_eval: (x - running_mean) / sqrt(running_var + eps) * weight + bias")
