"""This is what you get when rows with no allowed key are zeroed after a NaN softmax: the value is right, the gradient is NaN.

Overrides: _masked_attention
Source: pytorch/pytorch issue #68425 (torch.where gives NaN gradients when the branch it does not select is NaN)
"""

import math

import torch


def _masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(scores.shape)
    has_key = allowed.any(dim=-1, keepdim=True)
    bias = torch.zeros(scores.shape, dtype=scores.dtype).masked_fill(~allowed, float("-inf"))  # additive mask
    weights = torch.softmax(scores + bias, dim=-1)
    weights = torch.where(has_key, weights, torch.zeros_like(weights))
    return weights @ v
