"""Mutant: normalises columns (dim=0) instead of rows."""

import torch


def normalize_rows(x):
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.float64):
        raise TypeError("x must be a float32 or float64 tensor")
    if x.dim() != 2 or not torch.isfinite(x).all():
        raise ValueError("x must be a finite 2-D tensor")
    return x / x.norm(dim=0, keepdim=True).clamp_min(1e-12)
