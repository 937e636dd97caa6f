"""For 4-D inputs the positions are laid along the heads axis (-3) instead of the sequence axis (-2).

Overrides: apply_rotary
Source: https://github.com/mlfoundations/open_lm/issues/4 (rotary embedding applied on the head dimension instead of the sequence dimension)
"""

import torch


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    cos, sin = _cos_sin(positions, x.shape[-1], base, x.dtype)
    if x.dim() == 4 and x.shape[1] == x.shape[2]:
        cos, sin = cos[:, None, :], sin[:, None, :]  # (L, 1, D/2): broadcast over the sequence instead
    elif x.dim() == 4:
        cos, sin = cos[: x.shape[1], None, :], sin[: x.shape[1], None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
