"""This is what you get when what was accumulated is rescaled by exp(m_new - m_old) instead of exp(m_old - m_new): the earlier blocks grow when the maximum rises, instead of shrinking.

Source: deepseek-ai/FlashMLA pull request #177 (the kernel deep-dive wrote the rescaling factor as exp(m_new - m_old)); Dao-AILab/flash-attention issue #991 (Algorithm 1 of the FlashAttention-2 paper applies diag(exp(m_old - m_new)) inverted)

Overrides: _update
"""

import torch


def _update(m, ell, o, s, v_block):
    m_new = torch.maximum(m, s.detach().amax(dim=-1))
    shift = _finite(m_new)
    alpha = torch.where(m == float("-inf"), torch.zeros_like(m), torch.exp(shift - _finite(m)))
    p = torch.exp(s - shift[..., None])
    ell = alpha * ell + p.sum(dim=-1)
    o = alpha[..., None] * o + p @ v_block
    return m_new, ell, o
