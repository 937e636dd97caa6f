"""This is what you get when the whole [Lq, Lk] matrix of scores is built at once (naive attention): the values are right, but the memory grows with Lq x Lk and a long sequence no longer fits.

Overrides: blockwise_attention
"""

import math

import torch


def blockwise_attention(q, k, v, block_size, causal=False):
    check_attention_inputs(q, k, v, block_size, causal)
    lq, lk = q.shape[-2], k.shape[-2]
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # [..., Lq, Lk]
    if causal:
        s = s.masked_fill(~_allowed(lq, lk, 0, lk, q.device), float("-inf"))
    m = s.detach().amax(dim=-1, keepdim=True)
    p = torch.exp(s - m)
    ell = p.sum(dim=-1)
    return (p @ v) / ell[..., None], m[..., 0] + torch.log(ell)
