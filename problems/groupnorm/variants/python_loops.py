"""Variant: one (sample, group) at a time, selecting the group's channels by slicing, then stacked back."""

import torch

from helpers import check_affine, check_eps, check_input, check_num_groups


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    per_group = x.shape[1] // num_groups
    samples = []
    for n in range(x.shape[0]):
        parts = []
        for g in range(num_groups):
            values = x[n, g * per_group:(g + 1) * per_group]  # [C/G, *spatial]
            mean = values.sum() / values.numel()
            deviations = values - mean
            var = (deviations * deviations).sum() / values.numel()
            parts.append(deviations / torch.sqrt(var + eps))
        samples.append(torch.cat(parts))
    y = torch.stack(samples) if samples else x * 0.0  # an empty batch: a new empty tensor of x's shape
    channel_shape = (-1,) + (1,) * (x.dim() - 2)
    if weight is not None:
        y = y * weight.reshape(channel_shape)
    if bias is not None:
        y = y + bias.reshape(channel_shape)
    return y
