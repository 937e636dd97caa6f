"""The rotation goes clockwise: the sign of sin is flipped.

Overrides: apply_rotary
"""

import torch


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    cos, sin = _cos_sin(positions, x.shape[-1], base, x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos + odd * sin, -even * sin + odd * cos), dim=-1).flatten(-2)
