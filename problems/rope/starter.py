"""Rotary position embedding (Su et al., 2021, RoFormer) with the paper's interleaved pairs. Implement apply_rotary
below; the helpers of helpers.py (read-only under the editor) check the contract for you."""

import math

import torch

from helpers import check_base, check_positions, check_x


def apply_rotary(x, positions, base=10000.0):
    """Rotate each feature pair (x[..., 2i], x[..., 2i + 1]) at position p by the angle p * base^(-2i / D).

    x: [..., L, D] float32/float64 with D even; positions: int64 [L]. Returns a new tensor like x.
    """
    check_x(x)
    check_positions(positions, x)
    check_base(base)
    # 1. the D/2 frequencies base^(-2i/D) and the [L, D/2] angles positions * frequency, in float64
    # 2. cos and sin of the angles, rounded to x.dtype
    # 3. rotate each pair (x[..., 0::2], x[..., 1::2]) counter-clockwise and interleave the results back
    raise NotImplementedError("apply_rotary: follow steps 1-3 above")
