"""This is what you get when the causal mask is applied only when the queries fill the whole cache (a fresh prefill): a chunk of several tokens after a cache sees its own later tokens.

Overrides: _causal_suffix_mask
Source: mlx-node/mlx-node PR #24 (crates/mlx-sys/src/mlx_fused_ops.cpp set the causal mask only when seq_len == kv_len, so cached multi-token chunks attended to future positions)
"""

import torch


def _causal_suffix_mask(num_queries, num_keys, device):
    allowed = torch.ones(num_queries, num_keys, dtype=torch.bool, device=device)
    if num_queries == num_keys:
        allowed = allowed.tril()
    return allowed
