"""This is what you get when the running maximum starts at a finite stand-in for -inf (-5e4): a row whose entries all lie below it keeps the stand-in as its maximum, every exponential underflows to 0 and the row comes out as zeros.

Source: flashinfer-ai/flashinfer issue #4267 (the FA2 kernels start the online-softmax maximum at -math::inf, a finite 5e4, and return a zero vector when every logit of a row is below -5e4)

Overrides: _online_statistics
"""

import torch


def _online_statistics(x, block_size):
    m = torch.full(x.shape[:-1], -5e4, dtype=x.dtype, device=x.device)
    ell = torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.detach().amax(dim=-1))
        ell = ell * torch.exp(m - m_new) + torch.exp(block - m_new[..., None]).sum(dim=-1)
        m = m_new
    return m, ell
