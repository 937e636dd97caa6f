"""The angles are computed in x's dtype, so float32 inputs at large positions get angles off by milliradians.

Overrides: _cos_sin
Source: https://github.com/EleutherAI/gpt-neox/issues/1003 (rotary cos/sin tables computed in reduced precision are wrong at large positions)
"""

import torch


def _cos_sin(positions, d, base, dtype):
    pair = torch.arange(d // 2, dtype=dtype)
    angles = positions.to(dtype)[:, None] * (base ** (-2.0 * pair / d))[None, :]
    return torch.cos(angles), torch.sin(angles)
