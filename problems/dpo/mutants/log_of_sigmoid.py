"""This is what you get when the loss is written -log(sigmoid(m)): sigmoid underflows to 0 for a very negative margin, the loss becomes inf and its gradient nan.

Source: thinking-machines-lab/tinker-cookbook pull request #188 (replaces -torch.log(torch.sigmoid(...)) in the DPO loss with F.logsigmoid)

Overrides: _neg_log_sigmoid
"""

import torch


def _neg_log_sigmoid(x):
    return -torch.log(torch.sigmoid(x))
