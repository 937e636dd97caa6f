"""The batch is flattened with .view(), which fails on transposed or expanded inputs.

Overrides: scaled_dot_product_attention
"""

import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    lead = q.shape[:-2]
    q3 = q.view(-1, q.shape[-2], q.shape[-1])
    k3 = k.view(-1, k.shape[-2], k.shape[-1])
    v3 = v.view(-1, v.shape[-2], v.shape[-1])
    scores = torch.bmm(q3, k3.transpose(1, 2)) / math.sqrt(q.shape[-1])
    scores = scores.view(scores_shape)
    if mask is None:
        return (torch.softmax(scores, dim=-1).reshape(q3.shape[0], *scores_shape[-2:]) @ v3).view(
            *lead, q.shape[-2], v.shape[-1])
    mask = mask.expand(scores_shape)
    has_key = mask.any(dim=-1, keepdim=True)
    scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~has_key, 0.0)
    return torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0) @ v
