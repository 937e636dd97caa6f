"""This is what you get when each block's weighted values are divided by the running sum as you go (FlashAttention-1's normalised output) but the output kept so far is not re-weighted by l_old / l_new: the division belongs once at the end, or the old output must be rescaled by it.

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
    for start in range(0, lk, block_size):
        stop = min(start + block_size, lk)
        s = (q @ k[..., start:stop, :].transpose(-2, -1)) * scale
        if causal:
            s = s.masked_fill(~_allowed(lq, lk, start, stop, q.device), float("-inf"))
        m_new = torch.maximum(m, s.detach().amax(dim=-1))
        shift = _finite(m_new)
        alpha = torch.exp(m - shift)
        p = torch.exp(s - shift[..., None])
        ell = alpha * ell + p.sum(dim=-1)
        o = alpha[..., None] * o + (p @ v[..., start:stop, :]) / ell[..., None]
        m = m_new
    return o, m + torch.log(ell)
