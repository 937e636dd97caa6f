"""Variant: loop over the pairs with math.cos and math.sin for each (position, pair) angle."""

import math

import torch

from helpers import check_base, check_positions, check_x


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    d = x.shape[-1]
    columns = []
    for i in range(d // 2):
        theta = base ** (-2.0 * i / d)
        cos = torch.tensor([math.cos(int(p) * theta) for p in positions], dtype=x.dtype)[:, None]
        sin = torch.tensor([math.sin(int(p) * theta) for p in positions], dtype=x.dtype)[:, None]
        a, b = x[..., :, 2 * i : 2 * i + 1], x[..., :, 2 * i + 1 : 2 * i + 2]
        columns += [a * cos - b * sin, a * sin + b * cos]
    return torch.cat(columns, dim=-1)
