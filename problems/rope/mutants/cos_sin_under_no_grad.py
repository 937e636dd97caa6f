"""The whole rotation runs under torch.no_grad(), so the result is cut off from x's graph.

Overrides: apply_rotary
"""

import torch


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    with torch.no_grad():
        cos, sin = _cos_sin(positions, x.shape[-1], base, x.dtype)
        even, odd = x[..., 0::2], x[..., 1::2]
        return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
