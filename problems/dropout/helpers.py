"""Dropout, inverted, with its randomness passed in: the validation helpers, supplied and read-only.

`from helpers import check_inputs, check_settings` in your solution."""

import math

import torch


def check_inputs(x, uniform):
    """TypeError unless x and uniform are float32/float64 tensors of one dtype; ValueError unless uniform has x's
    shape and device and every value in [0, 1)."""
    for name, tensor in (("x", x), ("uniform", uniform)):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if tensor.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name} must be float32 or float64, got {tensor.dtype}")
    if uniform.dtype != x.dtype:
        raise TypeError(f"uniform must have x's dtype {x.dtype}, got {uniform.dtype}")
    if uniform.shape != x.shape:
        raise ValueError(f"uniform must have x's shape {tuple(x.shape)}, got {tuple(uniform.shape)}")
    if uniform.device != x.device:
        raise ValueError(f"uniform must be on x's device {x.device}, got {uniform.device}")
    if uniform.numel() and not ((uniform >= 0) & (uniform < 1)).all():
        raise ValueError("uniform must hold values in [0, 1) (one draw per element of x)")


def check_settings(p, training):
    """TypeError unless p is a Python int/float (not bool) and training a bool; ValueError unless 0 <= p <= 1."""
    if isinstance(p, bool) or not isinstance(p, int | float):
        raise TypeError(f"p must be a Python int or float, got {type(p).__name__}")
    if not math.isfinite(p) or not 0 <= p <= 1:
        raise ValueError(f"p is a probability and must be in [0, 1], got {p}")
    if not isinstance(training, bool):
        raise TypeError(f"training must be a bool, got {type(training).__name__}")
