"""This is what you get when the heads are split into groups with torch.chunk and nothing checks that num_groups
divides num_heads: chunk quietly returns fewer, larger groups.

Overrides: check_projection, mean_pool_kv_heads
"""

import torch

_reference_check_projection = check_projection


def check_projection(w, num_heads, num_groups):
    if isinstance(num_groups, int) and not isinstance(num_groups, bool) and num_groups >= 1 \
            and isinstance(num_heads, int) and not isinstance(num_heads, bool) and num_heads >= 1:
        _reference_check_projection(w, num_heads, 1)  # every rule but the divisibility of the heads
        return
    _reference_check_projection(w, num_heads, num_groups)


def mean_pool_kv_heads(w, num_heads, num_groups):
    check_projection(w, num_heads, num_groups)
    head_dim = w.shape[0] // num_heads
    heads = w.reshape(num_heads, head_dim, w.shape[1])
    groups = torch.chunk(heads, num_groups, dim=0)
    return torch.cat([group.mean(dim=0) for group in groups])
