"""A float mask is accepted and added to the logits (PyTorch's attn_mask convention) instead of being refused.

Overrides: check_mask, scaled_dot_product_attention
"""

import math

import torch


def check_mask(mask, scores_shape, device):
    if mask is None:
        return
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be None or a torch.Tensor, got {type(mask).__name__}")


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None and mask.dtype != torch.bool:
        return torch.softmax(scores + mask, dim=-1) @ v
    if mask is None:
        return torch.softmax(scores, dim=-1) @ v
    mask = mask.expand(scores_shape)
    has_key = mask.any(dim=-1, keepdim=True)
    scores = scores.masked_fill(~mask, float("-inf")).masked_fill(~has_key, 0.0)
    return torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0) @ v
