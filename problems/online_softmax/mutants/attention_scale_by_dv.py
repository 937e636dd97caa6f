"""This is what you get when the scores are divided by sqrt(Dv), the size of the values, instead of sqrt(D), the size of queries and keys.

Overrides: blockwise_attention
"""

import math

import torch


def blockwise_attention(q, k, v, block_size, causal=False):
    check_attention_inputs(q, k, v, block_size, causal)
    lq, lk = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(v.shape[-1])
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype, device=q.device)
    ell = torch.zeros(q.shape[:-1], dtype=q.dtype, device=q.device)
    o = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    for start in range(0, lk, block_size):
        stop = min(start + block_size, lk)
        s = (q @ k[..., start:stop, :].transpose(-2, -1)) * scale
        if causal:
            s = s.masked_fill(~_allowed(lq, lk, start, stop, q.device), float("-inf"))
        m, ell, o = _update(m, ell, o, s, v[..., start:stop, :])
    return o / ell[..., None], m + torch.log(ell)
