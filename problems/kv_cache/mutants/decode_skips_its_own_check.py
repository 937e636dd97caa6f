"""This is what you get when decode_step validates the cache and the new keys and values as append_kv does, but not the queries against them: queries and new keys of different lengths are not refused, and the step mixes positions that do not belong together.

Overrides: check_decode
"""


def check_decode(cache_k, cache_v, q_new, k_new, v_new):
    check_append(cache_k, cache_v, k_new, v_new)
