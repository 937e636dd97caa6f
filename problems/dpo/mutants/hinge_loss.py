"""This is what you get when the hinge loss of SLiC, max(0, 1 - m), takes the place of DPO's -log sigmoid(m).

Overrides: _neg_log_sigmoid
"""

import torch


def _neg_log_sigmoid(x):
    return torch.relu(1 - x)
