"""This is what you get when the logits q k^T are not divided by sqrt(D).

Overrides: _masked_attention
"""

import torch


def _masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1)
    allowed = allowed.expand(scores.shape)
    has_key = allowed.any(dim=-1, keepdim=True)
    scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~has_key, 0.0)
    weights = _softmax_last(scores).masked_fill(~has_key, 0.0)
    return weights @ v
