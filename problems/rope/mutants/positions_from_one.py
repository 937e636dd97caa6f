"""Every position is shifted by one, as if the sequence started at 1.

Overrides: apply_rotary
"""

import torch


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    cos, sin = _cos_sin(positions + 1, x.shape[-1], base, x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
