"""This is what you get when the causal mask is built as if the new queries started at position 0 (query j sees keys 0..j), instead of at the end of the cache: a decode step sees only the first key.

Overrides: _causal_suffix_mask
Source: gittensor-ai-lab/sparkinfer issue #3 (kernels/csrc/cuda/attention/flash_prefill.cu: kv_end = min(seqlen_kv, qpos + 1) ignored seqlen_kv - seqlen_q); the same tril(0) over [q_len, kv_len] in hyprstream/hyprstream PR #1521
"""

import torch


def _causal_suffix_mask(num_queries, num_keys, device):
    return torch.ones(num_queries, num_keys, dtype=torch.bool, device=device).tril(diagonal=0)
