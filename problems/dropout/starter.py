"""Inverted dropout with the randomness passed in. Implement dropout below; the helpers of helpers.py (read-only
under the editor) check the contract."""

import math

import torch

from helpers import check_inputs, check_settings


def dropout(x, p, uniform, training=True):
    """Inverted dropout: keep x where uniform >= p, scaled by 1 / (1 - p); drop (exactly 0) elsewhere.

    x: float tensor, any shape. uniform: same shape and dtype, values in [0, 1). p: probability of dropping.
    training=False, or p = 0: return a copy of x. p = 1: all zeros, never nan.
    """
    check_inputs(x, uniform)
    check_settings(p, training)
    # 1. eval mode and p = 0: a copy of x (never x itself)
    # 2. the mask: keep where uniform >= p
    # 3. kept elements times 1 / (1 - p), dropped elements exactly 0 (choose, do not multiply by a 0/1 mask);
    #    at p = 1 never compute 1 / (1 - p)
    raise NotImplementedError("dropout: follow steps 1-3 above")
