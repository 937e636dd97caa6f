"""Correct, written differently: FlashAttention-2's tiling over blocks of queries as well as keys, skipping the key
blocks a causal query block cannot see, computed in float64 inside and cast back; the softmax keeps the maximum
on the autograd graph (its effect cancels) and walks the row one entry at a time when the block size is 1."""

import math

import torch

from helpers import check_attention_inputs, check_logits


def online_softmax(x, block_size):
    check_logits(x, block_size)
    y = x.double()
    m = torch.full(y.shape[:-1], float("-inf"), dtype=torch.float64)
    total = torch.zeros(y.shape[:-1], dtype=torch.float64)
    n = y.shape[-1]
    for start in range(0, n, block_size):
        block = y[..., start:min(n, start + block_size)]
        m_new = torch.maximum(m, block.max(dim=-1).values)
        seen = m_new > float("-inf")
        base = torch.where(seen, m_new, torch.zeros_like(m_new))
        old = torch.where(m > float("-inf"), torch.exp(m - base), torch.zeros_like(m))
        total = total * old + torch.exp(block - base[..., None]).sum(dim=-1)
        m = m_new
    base = torch.where(m > float("-inf"), m, torch.zeros_like(m))
    denominator = torch.where(total > 0, total, torch.ones_like(total))
    return (torch.exp(y - base[..., None]) / denominator[..., None]).to(x.dtype)


def blockwise_attention(q, k, v, block_size, causal=False):
    check_attention_inputs(q, k, v, block_size, causal)
    dtype = q.dtype
    q, k, v = q.double(), k.double(), v.double()
    lq, lk = q.shape[-2], k.shape[-2]
    offset = lk - lq
    scale = 1.0 / math.sqrt(q.shape[-1])
    outs, lses = [], []
    for q_start in range(0, lq, block_size):
        q_stop = min(lq, q_start + block_size)
        qi = q[..., q_start:q_stop, :] * scale
        m = torch.full(qi.shape[:-1], float("-inf"), dtype=torch.float64)
        ell = torch.zeros(qi.shape[:-1], dtype=torch.float64)
        acc = torch.zeros(*qi.shape[:-1], v.shape[-1], dtype=torch.float64)
        last_key = (q_stop - 1 + offset) if causal else lk - 1
        for k_start in range(0, last_key + 1, block_size):
            k_stop = min(lk, k_start + block_size)
            s = qi @ k[..., k_start:k_stop, :].transpose(-2, -1)
            if causal:
                future = torch.arange(k_start, k_stop)[None, :] > torch.arange(q_start, q_stop)[:, None] + offset
                s = s.masked_fill(future, float("-inf"))
            m_new = torch.maximum(m, s.detach().amax(dim=-1))
            alpha = torch.exp(m - m_new)
            p = torch.exp(s - m_new[..., None])
            ell = alpha * ell + p.sum(dim=-1)
            acc = alpha[..., None] * acc + p @ v[..., k_start:k_stop, :]
            m = m_new
        outs.append(acc / ell[..., None])
        lses.append(m + torch.log(ell))
    return torch.cat(outs, dim=-2).to(dtype), torch.cat(lses, dim=-1).to(dtype)
