"""The rotation pairs (i, i + D/2) while the frequencies are laid out per neighbouring pair, so they do not match.

Overrides: apply_rotary
Source: https://github.com/raiyanyahya/how-to-train-your-gpt/issues/6 (rotate_half with frequencies built by repeat_interleave)
"""

import torch


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    cos, sin = _cos_sin(positions, x.shape[-1], base, x.dtype)
    cos, sin = cos.repeat_interleave(2, dim=-1), sin.repeat_interleave(2, dim=-1)  # (L, D): theta_0, theta_0, ...
    half = x.shape[-1] // 2
    rotated_half = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated_half * sin
