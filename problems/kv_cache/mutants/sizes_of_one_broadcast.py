"""This is what you get when a batch or head size of 1 is allowed to broadcast against the cache: one query sequence silently reads every sequence's cache instead of being refused.

Overrides: check_attention
"""

_reference_check_attention = check_attention


def check_attention(q_new, cache_k, cache_v):
    import torch

    tensors = (q_new, cache_k, cache_v)
    if all(isinstance(t, torch.Tensor) and t.dim() == 4 for t in tensors):
        batch = max(t.shape[0] for t in tensors)
        heads = max(t.shape[1] for t in tensors)
        if all(t.shape[0] in (1, batch) and t.shape[1] in (1, heads) for t in tensors):
            q_new, cache_k, cache_v = (t.expand(batch, heads, *t.shape[2:]) for t in tensors)
    _reference_check_attention(q_new, cache_k, cache_v)
