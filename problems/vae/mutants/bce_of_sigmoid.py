"""This is what you get when the cross-entropy is taken of sigmoid(logits) (F.binary_cross_entropy clamps log 0 at -100): wrong once a sigmoid rounds to 0 or 1.

Overrides: _bce_with_logits
Source: hwalsuklee/tensorflow-mnist-VAE issue #4 (NaN loss from log of a sigmoid output); pytorch/pytorch issue #751 (BCELoss on a sigmoid is unstable)
"""

import torch
import torch.nn.functional as F


def _bce_with_logits(logits, x):
    return F.binary_cross_entropy(torch.sigmoid(logits), x, reduction="none")
