"""This is what you get when the log-sigmoid is computed as torch.log(torch.sigmoid(z)): once the sigmoid
underflows to 0 (z below about -88 in float32) the loss is log 0 = -inf, so -inf turns into an infinite loss.

Overrides: _pair_losses
Source: deepspeedai/DeepSpeedExamples issue #423 (applications/DeepSpeed-Chat/training/utils/model/reward_model.py: -torch.log(torch.sigmoid(c - r)) gives "loss inf"; fixed in PR #501 with logsigmoid)
"""

import torch


def _pair_losses(z, label):
    if label is None:
        return -torch.log(torch.sigmoid(z))
    return -(label * torch.log(torch.sigmoid(z)) + (1 - label) * torch.log(torch.sigmoid(-z)))
