"""This is what you get when an empty batch returns a new torch.zeros(()): the value is right, but the loss is
cut off from the rewards' graph, so backward() fails on it.

Overrides: _mean
"""

import torch


def _mean(losses):
    if losses.numel() == 0:
        return torch.zeros((), dtype=losses.dtype, device=losses.device)
    return losses.mean()
