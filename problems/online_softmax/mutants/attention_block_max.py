"""This is what you get when each block's exponentials use that block's own maximum and nothing is rescaled: blocks are weighted as if each held the largest score, whatever the other blocks hold.

Overrides: _update
"""

import torch


def _update(m, ell, o, s, v_block):
    m_block = _finite(s.detach().amax(dim=-1))
    p = torch.exp(s - m_block[..., None])
    ell = ell + p.sum(dim=-1)
    o = o + p @ v_block
    return torch.maximum(m, m_block), ell, o
