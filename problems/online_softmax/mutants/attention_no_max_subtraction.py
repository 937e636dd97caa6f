"""This is what you get when the scores are exponentiated as they are, with no running maximum subtracted: exp overflows to inf for scores above about 88 in float32 (709 in float64) and the output is inf / inf = nan.

Overrides: _update
"""

import torch

def _update(m, ell, o, s, v_block):
    p = torch.exp(s)
    return torch.zeros_like(m), ell + p.sum(dim=-1), o + p @ v_block

