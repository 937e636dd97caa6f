"""This is what you get when append_kv hands back the caller's own cache tensors when there is nothing to append: the "new" cache is the old one, and writing into either changes both.

Overrides: _grow
"""

import torch


def _grow(cache_k, cache_v, k_new, v_new):
    if k_new.shape[2] == 0:
        return cache_k, cache_v
    return torch.cat([cache_k, k_new], dim=2), torch.cat([cache_v, v_new], dim=2)
