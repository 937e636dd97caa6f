"""Inverted dropout with the randomness passed in. Implement dropout below; the helpers check the contract."""

import math

import torch


def _check_inputs(x, uniform):
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


def _check_settings(p, training):
    """TypeError unless p is a Python int/float (not bool) and training a bool; ValueError unless 0 <= p <= 1."""
    if isinstance(p, bool) or not isinstance(p, int | float):
        raise TypeError(f"p must be a Python int or float, got {type(p).__name__}")
    if not math.isfinite(p) or not 0 <= p <= 1:
        raise ValueError(f"p is a probability and must be in [0, 1], got {p}")
    if not isinstance(training, bool):
        raise TypeError(f"training must be a bool, got {type(training).__name__}")


def dropout(x, p, uniform, training=True):
    """Inverted dropout: keep x where uniform >= p, scaled by 1 / (1 - p); drop (exactly 0) elsewhere.

    x: float tensor, any shape. uniform: same shape and dtype, values in [0, 1). p: probability of dropping.
    training=False, or p = 0: return a copy of x. p = 1: all zeros, never nan.
    """
    _check_inputs(x, uniform)
    _check_settings(p, training)
    # 1. eval mode and p = 0: a copy of x (never x itself)
    # 2. the mask: keep where uniform >= p
    # 3. kept elements times 1 / (1 - p), dropped elements exactly 0 (choose, do not multiply by a 0/1 mask);
    #    at p = 1 never compute 1 / (1 - p)
    raise NotImplementedError("dropout: follow steps 1-3 above")
