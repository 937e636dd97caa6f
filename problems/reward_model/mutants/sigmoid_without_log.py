"""This is what you get when the loss is -sigmoid(z) instead of -log sigmoid(z): the model maximises the
probability rather than its log, so a badly wrong pair (sigmoid near 0) gets almost no gradient.

Overrides: _pair_losses
"""

import torch


def _pair_losses(z, label):
    if label is None:
        return -torch.sigmoid(z)
    return -(label * torch.sigmoid(z) + (1 - label) * torch.sigmoid(-z))
