"""Correct, without copying any key/value head: the query heads are viewed as [G, H/G] and contracted against their
group's keys with einsum (how memory-bound GQA kernels avoid the copy); the mask uses a log-space fill. Pooling
through unflatten and sum / (H/G)."""

import math

import torch

from helpers import check_mask, check_projection, check_qkv


def grouped_query_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    heads, groups = q.shape[-3], k.shape[-3]
    lead = q.shape[:-3]
    qg = q.reshape(*lead, groups, heads // groups, *q.shape[-2:])  # (..., G, r, Lq, D)
    logits = torch.einsum("...grqd,...gkd->...grqk", qg, k) / math.sqrt(q.shape[-1])
    logits = logits.reshape(scores_shape)
    if mask is not None:
        allowed = mask.expand(scores_shape)
        logits = logits.masked_fill(~allowed, -math.inf)
        empty = ~allowed.any(dim=-1, keepdim=True)
        logits = logits.masked_fill(empty, 0.0)
    if logits.shape[-1] == 0:
        weights = logits
    else:
        weights = torch.exp(logits - torch.logsumexp(logits, dim=-1, keepdim=True))
    if mask is not None:
        weights = weights.masked_fill(empty, 0.0)
    weights = weights.reshape(*lead, groups, heads // groups, *scores_shape[-2:])
    out = torch.einsum("...grqk,...gkv->...grqv", weights, v)
    return out.reshape(*q.shape[:-1], v.shape[-1])


def mean_pool_kv_heads(w, num_heads, num_groups):
    check_projection(w, num_heads, num_groups)
    per_group = num_heads // num_groups
    head_dim = w.shape[0] // num_heads
    blocks = w.unflatten(0, (num_groups, per_group, head_dim))
    return (blocks.sum(dim=1) / per_group).flatten(0, 1)
