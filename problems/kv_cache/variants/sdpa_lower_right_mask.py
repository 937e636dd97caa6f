"""torch's scaled_dot_product_attention with an explicit bottom-right boolean mask (never is_causal, which aligns
to the top left); the cache grows into a preallocated tensor filled by slice assignment."""

import torch
import torch.nn.functional as F

from helpers import check_append, check_attention, check_decode


def append_kv(cache_k, cache_v, k_new, v_new):
    check_append(cache_k, cache_v, k_new, v_new)
    old = cache_k.shape[2]
    grown = []
    for cache, new in ((cache_k, k_new), (cache_v, v_new)):
        out = cache.new_empty(*cache.shape[:2], old + new.shape[2], cache.shape[3])
        out[:, :, :old] = cache
        out[:, :, old:] = new
        grown.append(out)
    return grown[0], grown[1]


def cached_attention(q_new, cache_k, cache_v):
    check_attention(q_new, cache_k, cache_v)
    count, total = q_new.shape[2], cache_k.shape[2]
    if count == 0:
        return q_new.new_zeros(*q_new.shape[:3], cache_v.shape[-1])
    allowed = torch.ones(count, total, dtype=torch.bool, device=q_new.device).tril(diagonal=total - count)
    return F.scaled_dot_product_attention(q_new, cache_k, cache_v, attn_mask=allowed)


def decode_step(cache_k, cache_v, q_new, k_new, v_new):
    check_decode(cache_k, cache_v, q_new, k_new, v_new)
    cache_k, cache_v = append_kv(cache_k, cache_v, k_new, v_new)
    return cached_attention(q_new, cache_k, cache_v), cache_k, cache_v
