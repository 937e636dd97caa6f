"""This is what you get when the running sum l is not multiplied by exp(m_old - m_new) when a block raises the maximum, while the output accumulator is: the normaliser over-counts the earlier blocks.

Overrides: _update
"""

import torch


def _update(m, ell, o, s, v_block):
    m_new = torch.maximum(m, s.detach().amax(dim=-1))
    shift = _finite(m_new)
    alpha = torch.exp(m - shift)
    p = torch.exp(s - shift[..., None])
    ell = ell + p.sum(dim=-1)
    o = alpha[..., None] * o + p @ v_block
    return m_new, ell, o
