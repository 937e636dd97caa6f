"""This is what you get when the decode step returns the caller's cache instead of the grown one: the next step starts from a stale cache that lacks the tokens just added.

Overrides: decode_step
"""


def decode_step(cache_k, cache_v, q_new, k_new, v_new):
    check_decode(cache_k, cache_v, q_new, k_new, v_new)
    grown_k, grown_v = append_kv(cache_k, cache_v, k_new, v_new)
    return cached_attention(q_new, grown_k, grown_v), cache_k, cache_v
