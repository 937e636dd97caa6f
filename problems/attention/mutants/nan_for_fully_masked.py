"""Forbidden logits are -inf with no special case: a query with no allowed key returns NaN.

Overrides: scaled_dot_product_attention
Source: https://github.com/pytorch/pytorch/issues/41508 (nn.MultiheadAttention returns NaN for fully masked rows)
"""

import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
