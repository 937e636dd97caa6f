"""This is what you get when -log sigmoid(z) is written as log(1 + exp(-z)): exp(-z) overflows to inf for z
below about -88 in float32 (-709 in float64), so a badly wrong pair has an infinite loss.

Overrides: _pair_losses
Source: OpenRLHF/OpenRLHF, openrlhf/models/loss.py (LogExpLoss: torch.log(1 + torch.exp(reject_reward - chosen_reward)).mean())
"""

import torch


def _pair_losses(z, label):
    if label is None:
        return torch.log(1 + torch.exp(-z))
    return label * torch.log(1 + torch.exp(-z)) + (1 - label) * torch.log(1 + torch.exp(z))
