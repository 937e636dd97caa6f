"""This is what you get when a decode step attends over its new tokens only: the cache is grown and returned but never read, so every step forgets the past.

Overrides: decode_step
"""


def decode_step(cache_k, cache_v, q_new, k_new, v_new):
    check_decode(cache_k, cache_v, q_new, k_new, v_new)
    grown_k, grown_v = append_kv(cache_k, cache_v, k_new, v_new)
    return cached_attention(q_new, k_new, v_new), grown_k, grown_v
