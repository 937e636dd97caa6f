"""This is what you get when the output accumulator is not multiplied by exp(m_old - m_new) when a block raises the maximum (only the running sum is): earlier values keep too much weight.

Overrides: _update
"""

import torch


def _update(m, ell, o, s, v_block):
    m_new = torch.maximum(m, s.detach().amax(dim=-1))
    shift = _finite(m_new)
    alpha = torch.exp(m - shift)
    p = torch.exp(s - shift[..., None])
    ell = alpha * ell + p.sum(dim=-1)
    o = o + p @ v_block
    return m_new, ell, o
