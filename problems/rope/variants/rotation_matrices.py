"""Variant: an explicit 2 x 2 rotation matrix per position and pair, applied with einsum in float64."""

import torch

from helpers import check_base, check_positions, check_x


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    d = x.shape[-1]
    angles = positions.double()[:, None] * base ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)
    c, s = torch.cos(angles), torch.sin(angles)
    rotation = torch.stack((torch.stack((c, -s), dim=-1), torch.stack((s, c), dim=-1)), dim=-2)  # (L, D/2, 2, 2)
    pairs = x.double().reshape(*x.shape[:-1], d // 2, 2)
    return torch.einsum("lpij,...lpj->...lpi", rotation, pairs).reshape(x.shape).to(x.dtype)
