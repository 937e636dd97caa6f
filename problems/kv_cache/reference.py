"""Reference solution for the key/value cache problem (Pope et al., 2022). Trusted: imported only in the judge."""

import math

import torch

from helpers import check_append, check_attention, check_decode


def append_kv(cache_k, cache_v, k_new, v_new):
    """The grown cache: the N new positions after the T cached ones, along the time axis (dim 2). New tensors;
    the inputs are never modified."""
    check_append(cache_k, cache_v, k_new, v_new)
    return _grow(cache_k, cache_v, k_new, v_new)


def _grow(cache_k, cache_v, k_new, v_new):
    grown_k = torch.cat([cache_k, k_new], dim=2)  # [B, H, T, D] + [B, H, N, D] -> [B, H, T + N, D]
    grown_v = torch.cat([cache_v, v_new], dim=2)  # [B, H, T + N, Dv]
    return grown_k, grown_v


def _causal_suffix_mask(num_queries, num_keys, device):
    """allowed [L, T]: query j sits at absolute position T - L + j and may read keys 0 .. T - L + j."""
    query_position = torch.arange(num_queries, device=device) + (num_keys - num_queries)  # [L]
    key_position = torch.arange(num_keys, device=device)  # [T]
    return key_position[None, :] <= query_position[:, None]  # the mask is aligned to the bottom-right corner


def _softmax_last(scores):
    """Softmax over the last axis with each row's (detached) maximum subtracted, so exp never overflows."""
    if scores.numel() == 0:
        return scores
    top = scores.detach().amax(dim=-1, keepdim=True)
    exps = torch.exp(scores - top)  # a masked logit of -inf becomes exactly 0
    return exps / exps.sum(dim=-1, keepdim=True)


def cached_attention(q_new, cache_k, cache_v):
    """Causal attention of the L new queries, which occupy the last L positions of the cache, over the cache."""
    check_attention(q_new, cache_k, cache_v)
    return _attend(q_new, cache_k, cache_v)


def _attend(q_new, cache_k, cache_v):
    num_queries, num_keys = q_new.shape[2], cache_k.shape[2]
    scores = q_new @ cache_k.transpose(-2, -1) / math.sqrt(q_new.shape[-1])  # [B, H, L, D] x [B, H, D, T]
    allowed = _causal_suffix_mask(num_queries, num_keys, q_new.device)  # [L, T]: every row allows key 0
    weights = _softmax_last(scores.masked_fill(~allowed, float("-inf")))  # over the keys
    return weights @ cache_v  # [B, H, L, T] x [B, H, T, Dv] -> [B, H, L, Dv]


def decode_step(cache_k, cache_v, q_new, k_new, v_new):
    """One step of generation (a prefill when the cache is empty): append the new keys and values, then attend
    from the new queries. Returns (out [B, H, L, Dv], the grown cache_k, the grown cache_v)."""
    check_decode(cache_k, cache_v, q_new, k_new, v_new)  # validates everything the two steps below need
    cache_k, cache_v = _grow(cache_k, cache_v, k_new, v_new)
    return _attend(q_new, cache_k, cache_v), cache_k, cache_v
