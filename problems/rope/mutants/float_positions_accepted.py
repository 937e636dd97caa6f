"""Float or int32 positions are accepted instead of being refused with TypeError.

Overrides: check_positions
"""

import torch


def check_positions(positions, x):
    if not isinstance(positions, torch.Tensor):
        raise TypeError(f"positions must be a torch.Tensor, got {type(positions).__name__}")
    if tuple(positions.shape) != (x.shape[-2],):
        raise ValueError(f"positions must have shape [L] = [{x.shape[-2]}], got {tuple(positions.shape)}")
