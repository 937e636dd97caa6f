"""This is what you get when arguments of different dtypes are accepted and silently promoted, instead of raising TypeError.

Overrides: check_tensors
"""

from helpers import FLOAT_DTYPES

import torch


def check_tensors(names, tensors):
    for name, t in zip(names, tensors, strict=True):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} must contain only finite values")
