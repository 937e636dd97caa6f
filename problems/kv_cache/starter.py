"""Key/value cache (Pope et al., 2022): incremental causal attention for decoding.

Implement the three functions below. The validation helpers are supplied in helpers.py (shown read-only under the
editor): each function already calls them; keep those calls. Every tensor is [B, H, T, D]: batch, heads, time,
features.
"""

import math

import torch

from helpers import check_append, check_attention, check_decode


def append_kv(cache_k, cache_v, k_new, v_new):
    """(cache_k', cache_v'): the T cached positions followed by the N new ones along the time axis (dim 2).

    cache_k [B, H, T, D], cache_v [B, H, T, Dv], k_new [B, H, N, D], v_new [B, H, N, Dv]; T and N may be 0.
    Returns new tensors [B, H, T + N, D] and [B, H, T + N, Dv]; the inputs are never modified.
    """
    check_append(cache_k, cache_v, k_new, v_new)
    raise NotImplementedError("append_kv: the old positions first, then the new ones, along the time axis")


def cached_attention(q_new, cache_k, cache_v):
    """[B, H, L, Dv]: causal attention of the queries q_new [B, H, L, D] over the cache [B, H, T, D] / [B, H, T, Dv].

    The L queries are the LAST L positions of the cache (L <= T): query j sits at absolute position T - L + j
    and attends to keys 0 .. T - L + j with the weights softmax(q . k / sqrt(D)).
    """
    check_attention(q_new, cache_k, cache_v)
    # 1. scores q k^T / sqrt(D) over all T keys: [B, H, L, T]
    # 2. forbid every key later than the query's absolute position (-inf before the softmax)
    # 3. a stable softmax over the keys, then the weights times the values
    raise NotImplementedError("cached_attention: follow steps 1-3 above")


def decode_step(cache_k, cache_v, q_new, k_new, v_new):
    """(out, cache_k', cache_v') for L new tokens after a cache of P positions (P = 0: a prefill).

    cache_k [B, H, P, D], cache_v [B, H, P, Dv], q_new and k_new [B, H, L, D], v_new [B, H, L, Dv].
    out [B, H, L, Dv] equals the last L rows of full causal attention over all P + L positions.
    """
    check_decode(cache_k, cache_v, q_new, k_new, v_new)
    raise NotImplementedError("decode_step: grow the cache, then attend from the new queries")
