"""This is what you get when each group's block of rows is viewed as [head_dim, H/G] instead of [H/G, head_dim]:
consecutive rows of one head are averaged together instead of the same row of different heads.

Overrides: mean_pool_kv_heads
"""


def mean_pool_kv_heads(w, num_heads, num_groups):
    check_projection(w, num_heads, num_groups)
    rows, d_model = w.shape
    head_dim = rows // num_heads
    heads = w.reshape(num_groups, head_dim, num_heads // num_groups, d_model)
    return heads.mean(dim=2).reshape(num_groups * head_dim, d_model)
