"""This is what you get when the mask zeroes the weights after the softmax, so a query's allowed weights no longer sum to 1.

Overrides: _masked_attention
Source: lucidrains/memory-compressed-attention issue #2 (masking applied after the softmax instead of before it)
"""

import math

import torch


def _masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1) * allowed.expand(scores.shape)
    return weights @ v
