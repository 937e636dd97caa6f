"""This is what you get when the loop over key blocks stops at the last full block: when block_size does not divide Lk, the last keys are never attended to.

Source: jax-ml/jax issue #27224 (the Pallas GPU FlashAttention forward is only close to the reference when the sequence lengths are multiples of the block size)

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
    for start in range(0, lk - block_size + 1, block_size):
        stop = start + block_size
        s = (q @ k[..., start:stop, :].transpose(-2, -1)) * scale
        if causal:
            s = s.masked_fill(~_allowed(lq, lk, start, stop, q.device), float("-inf"))
        m, ell, o = _update(m, ell, o, s, v[..., start:stop, :])
    ell = torch.where(ell > 0, ell, torch.ones_like(ell))
    return o / ell[..., None], m + torch.log(ell)
