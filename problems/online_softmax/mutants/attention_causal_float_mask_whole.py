"""This is what you get when the causal mask is built once, as a whole [Lq, Lk] float matrix of 0 and -inf added to
each block's scores: the values are right, but that one mask grows with Lq x Lk and a long causal sequence no
longer fits (without the mask the function stays within memory).

Overrides: blockwise_attention
"""

import math

import torch


def blockwise_attention(q, k, v, block_size, causal=False):
    check_attention_inputs(q, k, v, block_size, causal)
    lq, lk = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype, device=q.device)
    ell = torch.zeros(q.shape[:-1], dtype=q.dtype, device=q.device)
    o = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    bias = None
    if causal:
        bias = torch.zeros(lq, lk, dtype=q.dtype, device=q.device).masked_fill(
            ~_allowed(lq, lk, 0, lk, q.device), float("-inf"))
    for start in range(0, lk, block_size):
        stop = min(start + block_size, lk)
        s = (q @ k[..., start:stop, :].transpose(-2, -1)) * scale
        if bias is not None:
            s = s + bias[:, start:stop]
        m, ell, o = _update(m, ell, o, s, v[..., start:stop, :])
    return o / ell[..., None], m + torch.log(ell)
