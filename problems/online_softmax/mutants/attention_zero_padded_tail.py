"""This is what you get when k and v are padded with zeros up to a multiple of block_size and the padding is not masked: each padded key scores 0 and takes weight exp(0 - m) away from the real keys.

Source: flashinfer-ai/flashinfer pull request #5090 (when seqlen_k % 64 != 0 the zero-filled keys of the last block scored 0, got softmax weight exp(0) and corrupted the output)

Overrides: blockwise_attention
"""

import math

import torch


def blockwise_attention(q, k, v, block_size, causal=False):
    check_attention_inputs(q, k, v, block_size, causal)
    lq, lk = q.shape[-2], k.shape[-2]
    pad = (-lk) % block_size
    k = torch.cat([k, k.new_zeros(*k.shape[:-2], pad, k.shape[-1])], dim=-2)
    v = torch.cat([v, v.new_zeros(*v.shape[:-2], pad, v.shape[-1])], dim=-2)
    scale = 1.0 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype, device=q.device)
    ell = torch.zeros(q.shape[:-1], dtype=q.dtype, device=q.device)
    o = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    for start in range(0, lk + pad, block_size):
        stop = start + block_size
        s = (q @ k[..., start:stop, :].transpose(-2, -1)) * scale
        if causal:
            allowed = _allowed(lq, lk, start, stop, q.device) | (torch.arange(start, stop, device=q.device) >= lk)
            s = s.masked_fill(~allowed, float("-inf"))
        m, ell, o = _update(m, ell, o, s, v[..., start:stop, :])
    return o / ell[..., None], m + torch.log(ell)
