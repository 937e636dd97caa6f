"""Loops over batch, heads and queries; each query reads the prefix of the cache up to its own position."""

import math

import torch

from helpers import check_append, check_attention, check_decode


def append_kv(cache_k, cache_v, k_new, v_new):
    check_append(cache_k, cache_v, k_new, v_new)
    return torch.cat([cache_k, k_new], dim=2), torch.cat([cache_v, v_new], dim=2)


def cached_attention(q_new, cache_k, cache_v):
    check_attention(q_new, cache_k, cache_v)
    batch, heads, count, d = q_new.shape
    total, dv = cache_k.shape[2], cache_v.shape[-1]
    if count == 0:
        return q_new.new_zeros(batch, heads, 0, dv)
    rows = []
    for b in range(batch):
        for h in range(heads):
            for j in range(count):
                position = total - count + j  # the query's absolute position in the cache
                keys = cache_k[b, h, : position + 1]  # [position + 1, D]
                logits = keys @ q_new[b, h, j] / math.sqrt(d)
                weights = torch.softmax(logits, dim=0)
                rows.append(weights @ cache_v[b, h, : position + 1])
    return torch.stack(rows).reshape(batch, heads, count, dv)


def decode_step(cache_k, cache_v, q_new, k_new, v_new):
    check_decode(cache_k, cache_v, q_new, k_new, v_new)
    grown_k, grown_v = append_kv(cache_k, cache_v, k_new, v_new)
    return cached_attention(q_new, grown_k, grown_v), grown_k, grown_v
