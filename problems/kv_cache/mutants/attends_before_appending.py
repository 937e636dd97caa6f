"""This is what you get when the new queries attend over the cache as it was before their own keys were appended: a token never sees itself, and a prefill into an empty cache has nothing to read.

Overrides: decode_step
Source: harvard-edge/cs249r_book PR #1953 (tinytorch's cached generation step attended over the cache without the current token's keys and values, and failed on the first step)
"""


def decode_step(cache_k, cache_v, q_new, k_new, v_new):
    check_decode(cache_k, cache_v, q_new, k_new, v_new)
    out = cached_attention(q_new, cache_k, cache_v)
    grown_k, grown_v = append_kv(cache_k, cache_v, k_new, v_new)
    return out, grown_k, grown_v
