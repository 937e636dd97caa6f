"""Variant (correct): a loop over the channels, each normalised on its own."""

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
    if x.numel() // x.shape[1] < 2:
        raise ValueError("training needs more than one value per channel")
    outputs, means, variances = [], [], []
    for c in range(x.shape[1]):
        values = x[:, c]  # [N] or [N, H, W]
        first = values.detach().reshape(-1)[0]  # shift by one of the values: a constant channel becomes exactly 0
        shifted = values - first
        shifted_mean = shifted.mean()
        mean = first + shifted_mean
        var = ((shifted - shifted_mean) ** 2).mean()
        outputs.append((shifted - shifted_mean) / torch.sqrt(var + eps) * weight[c] + bias[c])
        m = values.numel()
        with torch.no_grad():
            means.append((1 - momentum) * running_mean[c] + momentum * mean)
            variances.append((1 - momentum) * running_var[c] + momentum * var * m / (m - 1))
    return torch.stack(outputs, dim=1), torch.stack(means).detach(), torch.stack(variances).detach()


def batch_norm_eval(x, running_mean, running_var, weight, bias, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("eps", eps, 0, math.inf, low_open=True)
    columns = [(x[:, c] - running_mean[c]) / torch.sqrt(running_var[c] + eps) * weight[c] + bias[c]
               for c in range(x.shape[1])]
    return torch.stack(columns, dim=1)
