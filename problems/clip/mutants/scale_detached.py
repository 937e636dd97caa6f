"""This is what you get when logit_scale is detached (or read with .item()): the learned temperature never receives a gradient.

Overrides: _scale
"""

import math

import torch


def _scale(logit_scale):
    return torch.exp(logit_scale.detach().clamp(max=math.log(MAX_SCALE)))
