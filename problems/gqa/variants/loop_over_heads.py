"""Correct, written as a loop over query heads in float64, each picking its key/value head by index; pooling with a
loop over groups."""

import math

import torch

from helpers import check_mask, check_projection, check_qkv


def grouped_query_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    heads, groups = q.shape[-3], k.shape[-3]
    allowed = None if mask is None else mask.expand(scores_shape)
    outputs = []
    for h in range(heads):
        g = h // (heads // groups)
        qh, kh, vh = q[..., h, :, :].double(), k[..., g, :, :].double(), v[..., g, :, :].double()
        logits = qh @ kh.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if allowed is None:
            keep = torch.ones_like(logits, dtype=torch.bool)
        else:
            keep = allowed[..., h, :, :]
        logits = torch.where(keep, logits, torch.full_like(logits, -math.inf))
        any_key = keep.any(dim=-1, keepdim=True)
        safe = torch.where(any_key, logits, torch.zeros_like(logits))
        weights = torch.softmax(safe, dim=-1) * any_key
        outputs.append(weights @ vh)
    return torch.stack(outputs, dim=-3).to(q.dtype)


def mean_pool_kv_heads(w, num_heads, num_groups):
    check_projection(w, num_heads, num_groups)
    head_dim = w.shape[0] // num_heads
    per_group = num_heads // num_groups
    pooled = []
    for g in range(num_groups):
        total = torch.zeros(head_dim, w.shape[1], dtype=torch.float64)
        for h in range(g * per_group, (g + 1) * per_group):
            total = total + w[h * head_dim:(h + 1) * head_dim].double()
        pooled.append(total / per_group)
    return torch.cat(pooled).to(w.dtype)
