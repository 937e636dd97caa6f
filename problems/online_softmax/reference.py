"""Reference solution for the online-softmax problem. Trusted: imported only in the judge's process."""

import math

import torch

from helpers import check_attention_inputs, check_logits


def _finite(m):
    """The running maximum with -inf (nothing seen yet, or only masked entries) replaced by 0, so that
    exp(x - m) never computes -inf - (-inf) = nan; every exponential of a -inf entry is then exactly 0."""
    return torch.where(m == float("-inf"), torch.zeros_like(m), m)


# --------------------------------------------------------------------------------------------- online softmax


def _online_statistics(x, block_size):
    """One pass over the blocks of the last axis: m = max_j x_j and ell = sum_j exp(x_j - m), updated per block.

    m carries no gradient: the softmax does not depend on which constant is subtracted, so its effect cancels."""
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype, device=x.device)
    ell = torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start:start + block_size]  # [..., <= block_size]; the last block may be shorter
        m_new = torch.maximum(m, block.detach().amax(dim=-1))
        shift = _finite(m_new)
        # the old sum was taken relative to m: move it to m_new (a factor <= 1), then add this block
        ell = ell * torch.exp(m - shift) + torch.exp(block - shift[..., None]).sum(dim=-1)
        m = m_new
    return m, ell


def online_softmax(x, block_size):
    """softmax(x) along the last axis, with the normaliser computed block by block in one pass."""
    check_logits(x, block_size)
    m, ell = _online_statistics(x, block_size)
    p = torch.exp(x - _finite(m)[..., None])
    # a row of only -inf entries has ell = 0 and p = 0: its result is a row of zeros (dividing by 1, not by 0)
    return p / torch.where(ell > 0, ell, torch.ones_like(ell))[..., None]


# ----------------------------------------------------------------------------------------- blockwise attention


def _allowed(lq, lk, start, stop, device):
    """[Lq, stop - start] bool: may query i see key j (start <= j < stop)? The queries are the last Lq of the Lk
    positions, so query i sits at position i + (Lk - Lq) and sees every key up to and including that position."""
    i = torch.arange(lq, device=device)[:, None]
    j = torch.arange(start, stop, device=device)[None, :]
    return j <= i + (lk - lq)


def _update(m, ell, o, s, v_block):
    """Fold one block of scores s [..., Lq, b] and values [..., b, Dv] into the running (m, ell, o)."""
    m_new = torch.maximum(m, s.detach().amax(dim=-1))  # [..., Lq]
    shift = _finite(m_new)
    alpha = torch.exp(m - shift)  # [..., Lq]: rescales what was accumulated relative to the old maximum
    p = torch.exp(s - shift[..., None])  # [..., Lq, b], every entry <= 1
    ell = alpha * ell + p.sum(dim=-1)
    o = alpha[..., None] * o + p @ v_block  # [..., Lq, Dv]
    return m_new, ell, o


def blockwise_attention(q, k, v, block_size, causal=False):
    """softmax(q k^T / sqrt(D)) v, one block of block_size keys at a time; also the log-sum-exp of each row's
    scores. Never holds more than [..., Lq, block_size] scores."""
    check_attention_inputs(q, k, v, block_size, causal)
    lq, lk = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype, device=q.device)  # [..., Lq]
    ell = torch.zeros(q.shape[:-1], dtype=q.dtype, device=q.device)
    o = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)  # [..., Lq, Dv]
    for start in range(0, lk, block_size):
        stop = min(start + block_size, lk)
        s = (q @ k[..., start:stop, :].transpose(-2, -1)) * scale  # [..., Lq, b]
        if causal:
            s = s.masked_fill(~_allowed(lq, lk, start, stop, q.device), float("-inf"))
        m, ell, o = _update(m, ell, o, s, v[..., start:stop, :])
    # every query sees at least key 0, so ell >= 1 here (the largest score contributes exp(0) = 1)
    return o / ell[..., None], m + torch.log(ell)
