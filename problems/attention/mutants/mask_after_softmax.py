"""The mask zeroes the weights after the softmax, so the allowed weights no longer sum to 1.

Overrides: scaled_dot_product_attention
Source: https://github.com/lucidrains/memory-compressed-attention/issues/2 (the order of masking and softmax)
"""

import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ v
