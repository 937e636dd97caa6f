"""This is what you get when queries that outnumber the cached positions are not refused: the first queries sit before position 0, see no key at all and come back as nan.

Overrides: check_attention
"""

_reference_check_attention = check_attention


def check_attention(q_new, cache_k, cache_v):
    import torch

    if all(isinstance(t, torch.Tensor) and t.dim() == 4 for t in (q_new, cache_k)):
        q_new = q_new[:, :, : cache_k.shape[2]]  # validate everything but L <= T
    _reference_check_attention(q_new, cache_k, cache_v)
