"""Group normalisation (Wu & He, 2018). Implement group_norm below; the helpers of helpers.py (read-only under
the editor) check the contract."""

import math

import torch

from helpers import check_affine, check_eps, check_input, check_num_groups


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each (sample, group of C / num_groups channels) with its own mean and biased variance.

    x: [N, C, *spatial] (float32 or float64; N may be 0, any number of spatial dimensions, none included).
    num_groups: G, a positive int dividing C. weight, bias: None or [C] (one per channel). eps > 0.
    Returns a new tensor shaped and typed like x.
    """
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    # 1. view x as [N, G, (C / G) * prod(spatial)]: one row per (sample, group)
    # 2. mean and biased variance of each row (the mean of squared deviations, dividing by the row length)
    # 3. (row - mean) / sqrt(var + eps), then back to x's shape
    # 4. multiply by weight and add bias per channel, where they are not None
    raise NotImplementedError("group_norm: follow steps 1-4 above")
