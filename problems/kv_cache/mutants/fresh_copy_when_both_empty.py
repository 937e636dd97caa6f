"""This is what you get when a cache that stays empty (no cached and no new positions) is returned as a detached
copy: the grown cache must still require grad when one of its (empty) parts does, as torch.cat gives.

Overrides: _grow
"""

import torch


def _grow(cache_k, cache_v, k_new, v_new):
    if cache_k.shape[2] == 0 and k_new.shape[2] == 0:
        return cache_k.detach().clone(), cache_v.detach().clone()
    return torch.cat([cache_k, k_new], dim=2), torch.cat([cache_v, v_new], dim=2)
