"""This is what you get when exp(logit_scale) is clamped after the exponential: right values, but a nan gradient once exp overflows.

Source: openai/CLIP#530 (torch.clamp(logit_scale.exp(), max=100))
Overrides: _scale
"""

import torch


def _scale(logit_scale):
    return torch.clamp(logit_scale.exp(), max=MAX_SCALE)
