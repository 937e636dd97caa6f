"""This is what you get when the new positions are put in front of the cached ones: the cache's time order is reversed at every step, and the causal mask then hides the wrong keys.

Overrides: _grow
"""

import torch


def _grow(cache_k, cache_v, k_new, v_new):
    return torch.cat([k_new, cache_k], dim=2), torch.cat([v_new, cache_v], dim=2)
