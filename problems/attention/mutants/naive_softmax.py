"""The softmax is exp(s) / sum(exp(s)) without subtracting the row maximum: overflows at logits of 1e4.

Overrides: scaled_dot_product_attention
"""

import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(scores_shape, dtype=torch.bool) if mask is None else mask.expand(scores_shape)
    exp = torch.exp(scores) * allowed
    total = exp.sum(dim=-1, keepdim=True)
    weights = torch.where(total > 0, exp / torch.where(total > 0, total, torch.ones_like(total)), 0.0)
    return weights @ v
