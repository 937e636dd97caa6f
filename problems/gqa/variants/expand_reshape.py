"""Correct, repeating the key/value heads as Llama's repeat_kv does (a new axis, expand, reshape), with a finite
fill and an explicit zeroing of rows with no allowed key; pooling as a matrix product with a [G, H] averaging
matrix."""

import math

import torch

from helpers import check_mask, check_projection, check_qkv


def _repeat_kv(t, per_group):
    lead, (groups, length, features) = t.shape[:-3], t.shape[-3:]
    t = t.unsqueeze(-3).expand(*lead, groups, per_group, length, features)
    return t.reshape(*lead, groups * per_group, length, features)


def grouped_query_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    per_group = q.shape[-3] // k.shape[-3]
    k, v = _repeat_kv(k, per_group), _repeat_kv(v, per_group)
    logits = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    if logits.shape[-1] == 0:
        return torch.matmul(logits, v)
    allowed = torch.ones(scores_shape, dtype=torch.bool) if mask is None else mask.expand(scores_shape)
    lowest = torch.finfo(logits.dtype).min
    logits = torch.where(allowed, logits, torch.full_like(logits, lowest))
    weights = torch.nn.functional.softmax(logits, dim=-1)
    weights = weights * allowed  # a forbidden key has exactly 0; a row with no allowed key becomes all zeros
    return torch.matmul(weights, v)


def mean_pool_kv_heads(w, num_heads, num_groups):
    check_projection(w, num_heads, num_groups)
    per_group = num_heads // num_groups
    head_dim = w.shape[0] // num_heads
    averaging = torch.zeros(num_groups, num_heads, dtype=w.dtype)
    for g in range(num_groups):
        averaging[g, g * per_group:(g + 1) * per_group] = 1.0 / per_group
    heads = w.reshape(num_heads, head_dim * w.shape[1])
    return (averaging @ heads).reshape(num_groups * head_dim, w.shape[1])
