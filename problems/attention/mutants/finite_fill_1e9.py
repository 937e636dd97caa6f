"""Forbidden logits are filled with -1e9: a query with no allowed key returns the mean of v instead of zeros.

Overrides: scaled_dot_product_attention
Source: ashtonjur/MachineTranslator, ScaledDot.py (scores.masked_fill(mask == 0, -1e9) before the softmax)
"""

import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    return torch.softmax(scores, dim=-1) @ v
