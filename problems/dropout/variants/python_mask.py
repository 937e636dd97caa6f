"""Variant (correct): the keep mask built element by element in Python, then one torch.where."""

import torch

from helpers import check_inputs, check_settings


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    flags = [draw >= p for draw in uniform.reshape(-1).tolist()]
    keep = torch.tensor(flags, dtype=torch.bool).reshape(x.shape)
    if p == 1:
        return torch.where(keep, x, torch.zeros_like(x))  # keep is all False here
    return torch.where(keep, x * (1.0 / (1.0 - p)), x.new_zeros(()))
