"""This is what you get when forbidden logits are -inf with no special case: a query with no allowed key returns NaN.

Overrides: _weights
Source: https://github.com/pytorch/pytorch/issues/41508 (nn.MultiheadAttention returns NaN for fully masked rows)
"""

import torch


def _weights(scores, mask):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1)
