"""The logits q k^T are not scaled at all.

Overrides: scaled_dot_product_attention
"""

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    scores = q @ k.transpose(-2, -1)
    if mask is None:
        return torch.softmax(scores, dim=-1) @ v
    mask = mask.expand(scores_shape)
    has_key = mask.any(dim=-1, keepdim=True)
    scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~has_key, 0.0)
    return torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0) @ v
