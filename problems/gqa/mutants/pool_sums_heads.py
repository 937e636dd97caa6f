"""This is what you get when the heads of a group are summed instead of averaged: the pooled keys and values are
H/G times too large.

Overrides: mean_pool_kv_heads
"""


def mean_pool_kv_heads(w, num_heads, num_groups):
    check_projection(w, num_heads, num_groups)
    rows, d_model = w.shape
    head_dim = rows // num_heads
    heads = w.reshape(num_groups, num_heads // num_groups, head_dim, d_model)
    return heads.sum(dim=1).reshape(num_groups * head_dim, d_model)
