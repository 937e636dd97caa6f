"""Variant (correct): the arithmetic in float64, cast back to the input dtype."""

import torch

from helpers import check_inputs, check_settings


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    wide = x.double()
    kept = uniform.double() >= p
    scaled = wide / (1.0 - p) if p < 1 else wide * 0.0
    return torch.where(kept, scaled, torch.zeros_like(wide)).to(x.dtype)
