"""Reference rotary position embedding (Su et al., 2021, RoFormer), interleaved pairs. The
checks compare submissions with it."""

import torch

from helpers import check_base, check_positions, check_x


def _cos_sin(positions, d, base, dtype):
    """cos and sin of the angles position * base^(-2i/D), each (L, D/2). The angles are computed in float64 for
    every dtype: a position of 1e5 times a frequency near 1 carries ~6e-3 rad of float32 rounding."""
    pair = torch.arange(d // 2, dtype=torch.float64, device=positions.device)  # i = 0 .. D/2 - 1
    frequencies = base ** (-2.0 * pair / d)  # (D/2,): theta_i
    angles = positions.to(torch.float64)[:, None] * frequencies[None, :]  # (L, 1) x (1, D/2) -> (L, D/2)
    return torch.cos(angles).to(dtype), torch.sin(angles).to(dtype)


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    cos, sin = _cos_sin(positions, x.shape[-1], base, x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., L, D/2): the pairs (x_2i, x_2i+1)
    rotated_even = even * cos - odd * sin  # a counter-clockwise rotation of each pair by its angle
    rotated_odd = even * sin + odd * cos
    return torch.stack((rotated_even, rotated_odd), dim=-1).flatten(-2)  # interleave back: (..., L, D)
