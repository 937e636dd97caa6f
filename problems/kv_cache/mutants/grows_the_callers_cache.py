"""This is what you get when the caller's cache tensors are grown in place (their .data replaced by the longer cache) and handed back: the values are right, but everyone holding the old cache now sees the new positions too.

Overrides: _grow
"""

import torch


def _grow(cache_k, cache_v, k_new, v_new):
    cache_k.data = torch.cat([cache_k, k_new], dim=2).data
    cache_v.data = torch.cat([cache_v, v_new], dim=2).data
    return cache_k, cache_v
