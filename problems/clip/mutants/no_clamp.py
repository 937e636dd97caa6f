"""This is what you get when the scale is not clipped at 100: exp(logit_scale) is used however large it grows.

Source: openai/CLIP#46 (the released model code has no temperature clipping)
Overrides: _scale
"""

import torch


def _scale(logit_scale):
    return torch.exp(logit_scale)
