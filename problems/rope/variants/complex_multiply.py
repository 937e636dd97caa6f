"""Variant: each pair as a complex number, multiplied by e^(i p theta) (as the LLaMA reference code does)."""

import torch

from helpers import check_base, check_positions, check_x


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    d = x.shape[-1]
    frequencies = base ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)
    angles = positions.double()[:, None] * frequencies[None, :]
    complex_dtype = torch.complex128 if x.dtype == torch.float64 else torch.complex64
    phase = torch.polar(torch.ones_like(angles), angles).to(complex_dtype)  # (L, D/2)
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(pairs * phase).flatten(-2).to(x.dtype)
