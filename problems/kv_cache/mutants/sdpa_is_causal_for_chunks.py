"""This is what you get when several new tokens go through torch's scaled_dot_product_attention with is_causal=True: its mask is aligned to the top-left corner, so a chunk after a cache loses most of the past.

Overrides: _attend
Source: pytorch/executorch PR #21749 (the KV-cache reference applied torch's is_causal to every multi-token step; upper-left aligned when query and key lengths differ); pytorch/pytorch issue #108108 (is_causal aligns to the top left)
"""

import torch

_reference_attend = _attend


def _attend(q_new, cache_k, cache_v):
    if q_new.shape[2] > 1:
        return torch.nn.functional.scaled_dot_product_attention(q_new, cache_k, cache_v, is_causal=True)
    return _reference_attend(q_new, cache_k, cache_v)  # a single new token may read the whole cache
