"""Rows with no allowed key are zeroed after a NaN softmax: the value is right but the gradient is NaN.

Overrides: scaled_dot_product_attention
Source: https://github.com/pytorch/pytorch/issues/68425 (torch.where gives nan gradients when the unselected branch is nan)
"""

import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is None:
        return torch.softmax(scores, dim=-1) @ v
    mask = mask.expand(scores_shape)
    has_key = mask.any(dim=-1, keepdim=True)
    bias = torch.zeros(scores_shape, dtype=scores.dtype).masked_fill(~mask, float("-inf"))  # additive -inf mask
    weights = torch.softmax(scores + bias, dim=-1)
    weights = torch.where(has_key, weights, torch.zeros_like(weights))
    return weights @ v
