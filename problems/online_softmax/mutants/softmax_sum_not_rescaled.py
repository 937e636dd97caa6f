"""This is what you get when the running sum l is not rescaled by exp(m_old - m_new) when a block raises the running maximum: earlier terms stay measured against the old maximum.

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
        ell = ell + torch.exp(block - shift[..., None]).sum(dim=-1)
        m = m_new
    return m, ell
