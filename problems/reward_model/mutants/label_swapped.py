"""This is what you get when the soft label is read the other way round, as the probability that the rejected
response is the better one: p = 1 then gives the loss of the swapped pair.

Overrides: _pair_losses
"""

import torch.nn.functional as F


def _pair_losses(z, label):
    if label is None:
        return -F.logsigmoid(z)
    return -((1 - label) * F.logsigmoid(z) + label * F.logsigmoid(-z))
