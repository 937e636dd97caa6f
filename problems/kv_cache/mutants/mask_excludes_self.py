"""This is what you get when a query may read only keys strictly before its own position: it never sees its own key, and the first token of a prefill sees nothing at all (nan).

Overrides: _causal_suffix_mask
"""

import torch


def _causal_suffix_mask(num_queries, num_keys, device):
    query_position = torch.arange(num_queries, device=device) + (num_keys - num_queries)
    key_position = torch.arange(num_keys, device=device)
    return key_position[None, :] < query_position[:, None]
