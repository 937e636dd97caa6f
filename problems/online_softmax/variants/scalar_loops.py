"""Correct, written differently: Milakov and Gimelshein's scalar algorithm for the softmax (one running maximum
and sum per row, updated entry by entry inside each block), and attention that builds each block's scores with
an explicit loop over its keys."""

import math

import torch

from helpers import check_attention_inputs, check_logits


def online_softmax(x, block_size):
    check_logits(x, block_size)
    rows = x.reshape(-1, x.shape[-1])
    out = []
    for row in rows:
        m = None
        d = row.new_zeros(())
        for start in range(0, row.shape[0], block_size):
            for value in row[start:start + block_size]:
                if bool(value == float("-inf")):
                    continue
                if m is None:
                    m, d = value.detach(), torch.exp(value - value.detach())
                elif bool(value > m):
                    d = d * torch.exp(m - value.detach()) + torch.exp(value - value.detach())
                    m = value.detach()
                else:
                    d = d + torch.exp(value - m)
        if m is None:
            out.append(torch.exp(row))  # zeros that stay connected to x (exp(-inf) = 0, gradient 0)
        else:
            out.append(torch.exp(row - m) / d)
    return torch.stack(out).reshape(x.shape) if out else x * 0


def blockwise_attention(q, k, v, block_size, causal=False):
    check_attention_inputs(q, k, v, block_size, causal)
    lq, lk = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    position = torch.arange(lq) + (lk - lq)
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    ell = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    for start in range(0, lk, block_size):
        columns = []
        for j in range(start, min(lk, start + block_size)):
            s = (q * k[..., j:j + 1, :]).sum(dim=-1) * scale
            if causal:
                s = torch.where(position >= j, s, torch.full_like(s, float("-inf")))
            columns.append(s)
        s = torch.stack(columns, dim=-1)
        columns = None  # the block's scores are in s now: one copy at a time under the memory limit
        m_new = torch.maximum(m, s.detach().amax(dim=-1))
        alpha = torch.exp(m - m_new)
        p = torch.exp(s - m_new[..., None])
        ell = ell * alpha + p.sum(dim=-1)
        acc = acc * alpha[..., None] + p @ v[..., start:start + block_size, :]
        m = m_new
        s = p = None  # this block's scores die before the next block's are built
    return acc / ell[..., None], m + torch.log(ell)
