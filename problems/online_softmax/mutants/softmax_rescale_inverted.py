"""This is what you get when the running sum is rescaled by exp(m_new - m_old) instead of exp(m_old - m_new): the old terms grow when they should shrink.

Overrides: _online_statistics
"""

import torch


def _online_statistics(x, block_size):
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype, device=x.device)
    ell = torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.detach().amax(dim=-1))
        shift = _finite(m_new)
        factor = torch.where(ell > 0, torch.exp(shift - _finite(m)), torch.zeros_like(ell))
        ell = ell * factor + torch.exp(block - shift[..., None]).sum(dim=-1)
        m = m_new
    return m, ell
