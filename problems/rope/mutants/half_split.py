"""Features are paired as (i, i + D/2), the "rotate half" convention, instead of neighbours (2i, 2i + 1).

Overrides: apply_rotary
Source: https://github.com/huggingface/transformers/issues/25199 (Hugging Face LLaMA's rotate_half differs from Meta's interleaved RoPE)
"""

import torch


def apply_rotary(x, positions, base=10000.0):
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    cos, sin = _cos_sin(positions, x.shape[-1], base, x.dtype)
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)
