"""Correct, written differently: FlashAttention-1's update, which keeps the output normalised after every block
(rescaling the old output by l_old * exp(m_old - m_new) / l_new), and a softmax that computes every block's
own (m, l) first and merges them all at once, as flash decoding merges the partial results of its splits."""

import math

import torch

from helpers import check_attention_inputs, check_logits


def online_softmax(x, block_size):
    check_logits(x, block_size)
    # each block's own statistics first, then one merge of all of them (flash decoding's rule)
    maxima, sums = [], []
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start:start + block_size]
        top = block.detach().amax(dim=-1)
        safe = torch.where(torch.isinf(top), torch.zeros_like(top), top)
        maxima.append(top)
        sums.append(torch.exp(block - safe[..., None]).sum(dim=-1))
    top = torch.stack(maxima).amax(dim=0)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    total = sum(s * torch.exp(m - top) for m, s in zip(maxima, sums, strict=True))
    total = torch.where(total > 0, total, torch.ones_like(total))
    return torch.exp(x - top[..., None]) / total[..., None]


def blockwise_attention(q, k, v, block_size, causal=False):
    check_attention_inputs(q, k, v, block_size, causal)
    lq, lk = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    ell = torch.zeros(q.shape[:-1], dtype=q.dtype)
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    rows = torch.arange(lq)[:, None] + (lk - lq)
    for start in range(0, lk, block_size):
        stop = min(lk, start + block_size)
        s = torch.einsum("...id,...jd->...ij", q, k[..., start:stop, :]) * scale
        if causal:
            s = torch.where(torch.arange(start, stop)[None, :] <= rows, s, torch.full_like(s, float("-inf")))
        block_max = s.detach().amax(dim=-1)
        m_new = torch.maximum(m, block_max)
        p = torch.exp(s - m_new[..., None])
        ell_new = torch.exp(m - m_new) * ell + p.sum(dim=-1)
        out = ((ell * torch.exp(m - m_new))[..., None] * out + p @ v[..., start:stop, :]) / ell_new[..., None]
        m, ell = m_new, ell_new
    return out, m + torch.log(ell)
