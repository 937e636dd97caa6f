"""This is what you get when the loop over blocks stops at the last full block: when block_size does not divide the length, the leftover entries never enter the maximum or the sum.

Source: jax-ml/jax issue #27224 (the Pallas GPU FlashAttention forward is only close to the reference when the sequence lengths are multiples of the block size)

Overrides: _online_statistics
"""

import torch


def _online_statistics(x, block_size):
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype, device=x.device)
    ell = torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
    n = x.shape[-1]
    for start in range(0, n - block_size + 1, block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.detach().amax(dim=-1))
        shift = _finite(m_new)
        ell = ell * torch.exp(m - shift) + torch.exp(block - shift[..., None]).sum(dim=-1)
        m = m_new
    return m, ell
