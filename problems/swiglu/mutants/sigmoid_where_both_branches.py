"""This is what you get when the stable sigmoid picks between 1 / (1 + exp(-x)) and exp(x) / (1 + exp(x)) with torch.where: both branches are still computed, the unused one overflows, and its nan leaks into the gradient (0 * nan = nan) although the value is right.

Source: pytorch/pytorch issue #156212 (torch.where(x <= t, torch.exp(x), b) gave nan gradients from the overflowing exp of the branch it did not select; also issue #68425)

Overrides: _silu
"""

import torch


def _silu(x):
    positive = 1 / (1 + torch.exp(-x))
    negative = torch.exp(x) / (1 + torch.exp(x))
    return x * torch.where(x >= 0, positive, negative)
