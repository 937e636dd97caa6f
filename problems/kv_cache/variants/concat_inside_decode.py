"""decode_step written out without calling the other two: it concatenates, then masks with triu on a [L, T] grid
shifted by the cache length; cached_attention runs each query block through a masked_fill and torch.softmax."""

import math

import torch

from helpers import check_append, check_attention, check_decode


def append_kv(cache_k, cache_v, k_new, v_new):
    check_append(cache_k, cache_v, k_new, v_new)
    return torch.cat([cache_k, k_new], dim=-2), torch.cat([cache_v, v_new], dim=-2)


def _attend(q, k, v):
    count, total = q.shape[-2], k.shape[-2]
    future = torch.ones(count, total, dtype=torch.bool, device=q.device).triu(diagonal=total - count + 1)
    scores = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(q.shape[-1]))
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return torch.matmul(weights, v)


def cached_attention(q_new, cache_k, cache_v):
    check_attention(q_new, cache_k, cache_v)
    return _attend(q_new, cache_k, cache_v)


def decode_step(cache_k, cache_v, q_new, k_new, v_new):
    check_decode(cache_k, cache_v, q_new, k_new, v_new)
    keys = torch.cat([cache_k, k_new], dim=2)
    values = torch.cat([cache_v, v_new], dim=2)
    return _attend(q_new, keys, values), keys, values
