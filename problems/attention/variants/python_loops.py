"""Variant: one query at a time, a hand-written stable softmax over the allowed keys."""

import math

import torch

from helpers import check_mask, check_qkv


def _attend_one(query, keys, values, allowed):
    """One query [D] against keys [Lk, D] and values [Lk, Dv], allowed [Lk] bool."""
    scale = 1.0 / math.sqrt(query.shape[0])
    logits = [(query * keys[j]).sum() * scale for j in range(keys.shape[0]) if allowed[j]]
    chosen = [j for j in range(keys.shape[0]) if allowed[j]]
    out = torch.zeros(values.shape[1], dtype=values.dtype) * query.sum() * 0
    if not chosen:
        return out
    top = max(float(x.detach()) for x in logits)
    exps = [torch.exp(x - top) for x in logits]
    total = sum(exps)
    for e, j in zip(exps, chosen, strict=True):
        out = out + (e / total) * values[j]
    return out


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    allowed = torch.ones(scores_shape, dtype=torch.bool) if mask is None else mask.expand(scores_shape)
    lead = q.shape[:-2]
    batch = math.prod(lead)
    qf, kf, vf = (t.reshape(batch, *t.shape[-2:]) for t in (q, k, v))
    af = allowed.reshape(batch, *scores_shape[-2:])
    batches = []
    for b in range(qf.shape[0]):
        rows = [_attend_one(qf[b, i], kf[b], vf[b], af[b, i]) for i in range(q.shape[-2])]
        batches.append(torch.stack(rows) if rows else torch.zeros(0, v.shape[-1], dtype=q.dtype))
    if not batches:
        return torch.zeros(*lead, q.shape[-2], v.shape[-1], dtype=q.dtype)
    return torch.stack(batches).reshape(*lead, q.shape[-2], v.shape[-1])
