"""This is what you get when the label argument is accepted but never used: every pair counts as a clear win
for the chosen response, ties included.

Overrides: _pair_losses
"""

import torch.nn.functional as F


def _pair_losses(z, label):
    return -F.logsigmoid(z)
