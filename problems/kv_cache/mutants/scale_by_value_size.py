"""This is what you get when the logits are divided by the square root of the value size Dv instead of the key size D.

Overrides: cached_attention
"""

import math

_reference_cached_attention = cached_attention


def cached_attention(q_new, cache_k, cache_v):
    check_attention(q_new, cache_k, cache_v)
    rescale = math.sqrt(q_new.shape[-1]) / math.sqrt(cache_v.shape[-1])  # undo sqrt(D), divide by sqrt(Dv)
    return _reference_cached_attention(q_new * rescale, cache_k, cache_v)
