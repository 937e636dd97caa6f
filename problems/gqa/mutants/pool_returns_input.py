"""This is what you get when G = H returns the projection itself: the result shares storage with w, so changing one
changes the other.

Overrides: mean_pool_kv_heads
"""

_reference_pool = mean_pool_kv_heads


def mean_pool_kv_heads(w, num_heads, num_groups):
    if num_groups == num_heads and not isinstance(num_groups, bool):
        check_projection(w, num_heads, num_groups)
        return w
    return _reference_pool(w, num_heads, num_groups)
