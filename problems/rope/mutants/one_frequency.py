"""Every pair turns at the same frequency (1 radian per position), so long and short range look alike.

Overrides: apply_rotary
"""

import torch


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    angles = positions.to(torch.float64)[:, None].expand(-1, x.shape[-1] // 2)
    cos, sin = torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
