"""Reference inverted dropout with its randomness passed in (Srivastava et al., 2014)."""

import torch

from helpers import check_inputs, check_settings


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()  # a copy, never the input itself
    keep = uniform >= p  # an element survives with probability 1 - p; p = 1 keeps nothing, as uniform < 1
    scale = 0.0 if p == 1 else 1 / (1 - p)  # never 1 / 0: at p = 1 nothing is kept anyway
    return torch.where(keep, x * scale, torch.zeros_like(x))  # dropped means exactly 0, even where x is inf
