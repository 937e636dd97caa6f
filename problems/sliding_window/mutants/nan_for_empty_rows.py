"""This is what you get when forbidden logits are -inf with no special case: a query with no allowed key returns NaN.

Overrides: _masked_attention
Source: huggingface/transformers PR #45511 (Gemma3 returns NaN when a query's whole sliding window falls in padding)
"""

import math

import torch


def _masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed.expand(scores.shape), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
