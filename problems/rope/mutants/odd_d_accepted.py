"""An odd D is accepted (the last feature is silently dropped from the pairs) instead of raising ValueError.

Overrides: check_x
"""

import torch


def check_x(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if x.dim() < 2:
        raise ValueError(f"x must be [..., L, D], got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")
