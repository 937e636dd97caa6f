"""This is what you get when the running maximum starts at a finite stand-in for -inf (-5e4): a query whose scores all lie below it keeps the stand-in as its maximum, every exponential underflows to 0 and the output is 0 / 0.

Source: flashinfer-ai/flashinfer issue #4267 (FA2 attention starts the running maximum at a finite -5e4 and silently outputs zeros when every logit of a row is below it)

Overrides: _update
"""

import torch

def _update(m, ell, o, s, v_block):
    m = torch.maximum(m, torch.full_like(m, -5e4))
    m_new = torch.maximum(m, s.detach().amax(dim=-1))
    alpha = torch.exp(m - m_new)
    p = torch.exp(s - m_new[..., None])
    return m_new, alpha * ell + p.sum(dim=-1), alpha[..., None] * o + p @ v_block
