"""This is what you get when the query's position is off by one upwards (offset T - L + 1): each query also reads the key right after its own.

Overrides: _causal_suffix_mask
"""

import torch


def _causal_suffix_mask(num_queries, num_keys, device):
    query_position = torch.arange(num_queries, device=device) + (num_keys - num_queries) + 1
    key_position = torch.arange(num_keys, device=device)
    return key_position[None, :] <= query_position[:, None]
