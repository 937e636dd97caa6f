"""This is what you get when forbidden logits are filled with -1e9: a query with no allowed key returns the mean of all values.

Overrides: _masked_attention
"""

import math

import torch


def _masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed.expand(scores.shape), -1e9)
    return torch.softmax(scores, dim=-1) @ v
