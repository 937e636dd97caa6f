"""This is what you get when the running maximum is subtracted even while it is still -inf: a leading block of only -inf entries computes exp(-inf - (-inf)) = nan, which then spreads to the whole row.

Source: Dao-AILab/flash-attention pull request #1948 (nan when m_i_new = -inf in the online softmax of the Triton cross-entropy, issue #1930); pytorch/pytorch pull request #130014 (exp((-inf) - (-inf)) in the CPU flash attention's lazy softmax)

Overrides: _online_statistics, online_softmax
"""

import torch


def _online_statistics(x, block_size):
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype, device=x.device)
    ell = torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.detach().amax(dim=-1))
        ell = ell * torch.exp(m - m_new) + torch.exp(block - m_new[..., None]).sum(dim=-1)
        m = m_new
    return m, ell


def online_softmax(x, block_size):
    check_logits(x, block_size)
    m, ell = _online_statistics(x, block_size)
    return torch.exp(x - m[..., None]) / ell[..., None]
