"""This is what you get when forbidden logits are filled with -1e9: a query with no allowed key returns the mean of
its values instead of zeros.

Overrides: _weights
"""

import torch


def _weights(scores, mask):
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    return torch.softmax(scores, dim=-1)
