"""This is what you get when group g pools heads g, g + G, g + 2G, ... (the rows viewed as [H/G, G, ...]) instead
of the contiguous heads g H/G .. (g + 1) H/G - 1 that share a key/value head in the attention.

Overrides: mean_pool_kv_heads
"""


def mean_pool_kv_heads(w, num_heads, num_groups):
    check_projection(w, num_heads, num_groups)
    rows, d_model = w.shape
    head_dim = rows // num_heads
    heads = w.reshape(num_heads // num_groups, num_groups, head_dim, d_model)
    return heads.mean(dim=0).reshape(num_groups * head_dim, d_model)
