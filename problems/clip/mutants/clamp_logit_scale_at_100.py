"""This is what you get when logit_scale itself is clamped at 100 instead of ln 100: the scale can grow to e^100.

Overrides: _scale
"""

import torch


def _scale(logit_scale):
    return torch.exp(logit_scale.clamp(max=MAX_SCALE))
