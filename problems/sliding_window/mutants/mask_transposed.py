"""This is what you get when the mask is applied transposed (rows read as keys): each query sees the next W keys.

Overrides: _masked_attention
"""

import math

import torch


def _masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = allowed.transpose(-2, -1).expand(scores.shape)
    has_key = allowed.any(dim=-1, keepdim=True)
    scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~has_key, 0.0)
    weights = _softmax_last(scores).masked_fill(~has_key, 0.0)
    return weights @ v
