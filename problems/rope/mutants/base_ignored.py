"""The base argument is ignored: the frequencies always use 10000.

Overrides: _cos_sin
Source: https://github.com/NVIDIA/TransformerEngine/issues/849 (inv_freq of RotaryPositionEmbedding hard-coded to 10k)
"""

import torch


def _cos_sin(positions, d, base, dtype):
    pair = torch.arange(d // 2, dtype=torch.float64)
    angles = positions.to(torch.float64)[:, None] * (10000.0 ** (-2.0 * pair / d))[None, :]
    return torch.cos(angles).to(dtype), torch.sin(angles).to(dtype)
