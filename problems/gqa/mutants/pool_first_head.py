"""This is what you get when each group keeps the first head of the group instead of the mean of its heads (the
paper's weaker alternative conversion).

Overrides: mean_pool_kv_heads
"""


def mean_pool_kv_heads(w, num_heads, num_groups):
    check_projection(w, num_heads, num_groups)
    rows, d_model = w.shape
    head_dim = rows // num_heads
    heads = w.reshape(num_groups, num_heads // num_groups, head_dim, d_model)
    return heads[:, 0].reshape(num_groups * head_dim, d_model)
