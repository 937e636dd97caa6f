"""Mutant: divides by the norm itself, so a zero row becomes 0 / 0 = nan."""

import torch


def normalize_rows(x):
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.float64):
        raise TypeError("x must be a float32 or float64 tensor")
    if x.dim() != 2 or not torch.isfinite(x).all():
        raise ValueError("x must be a finite 2-D tensor")
    return x / x.norm(dim=1, keepdim=True)
