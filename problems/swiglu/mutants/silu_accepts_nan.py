"""This is what you get when silu validates only the type of x: nan and inf pass through (silu(nan) = nan, silu(-inf) = nan) instead of being refused with a ValueError.

Overrides: check_activation_input
"""

import torch


def check_activation_input(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
