"""This is what you get when -log sigmoid(m) is written max(-m, 0) + log(1 + exp(-|m|)) with clamp and abs: the value is right, but at m = 0 autograd takes the kink's derivative -1 for max(-m, 0) and 0 for |m|, so the gradient there is twice the true -1/2.

Source: pytorch/pytorch issue #1835 (the stable log-sigmoid proposed there, clamp(x, max=0) - log(exp(-|x|) + 1), has this kink)

Overrides: _neg_log_sigmoid
"""

import torch


def _neg_log_sigmoid(x):
    return torch.clamp(-x, min=0) + torch.log1p(torch.exp(-x.abs()))
