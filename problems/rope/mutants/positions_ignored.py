"""positions is ignored and 0, 1, ..., L - 1 is used instead.

Overrides: apply_rotary
"""

import torch


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    steps = torch.arange(x.shape[-2], dtype=torch.int64)
    cos, sin = _cos_sin(steps, x.shape[-1], base, x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
