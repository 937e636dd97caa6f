"""Pair i uses the frequency of pair i - 1: base^(-2(i - 1)/D), so the first pair turns faster than 1 rad a step.

Overrides: _cos_sin
Source: https://github.com/bkitano/llama-from-scratch/issues/8 (theta = 10000 ** (-2 * (i - 1) / dim))
"""

import torch


def _cos_sin(positions, d, base, dtype):
    pair = torch.arange(d // 2, dtype=torch.float64)
    angles = positions.to(torch.float64)[:, None] * (base ** (-2.0 * (pair - 1) / d))[None, :]
    return torch.cos(angles).to(dtype), torch.sin(angles).to(dtype)
