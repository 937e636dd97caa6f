"""Reference inverted dropout with its randomness passed in (Srivastava et al., 2014). Hidden from learners."""

import math

import torch


def _check_inputs(x, uniform):
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
    if isinstance(p, bool) or not isinstance(p, int | float):
        raise TypeError(f"p must be a Python int or float, got {type(p).__name__}")
    if not math.isfinite(p) or not 0 <= p <= 1:
        raise ValueError(f"p is a probability and must be in [0, 1], got {p}")
    if not isinstance(training, bool):
        raise TypeError(f"training must be a bool, got {type(training).__name__}")


def dropout(x, p, uniform, training=True):
    _check_inputs(x, uniform)
    _check_settings(p, training)
    if not training or p == 0:
        return x.clone()  # a copy, never the input itself
    keep = uniform >= p  # an element survives with probability 1 - p; p = 1 keeps nothing, as uniform < 1
    scale = 0.0 if p == 1 else 1 / (1 - p)  # never 1 / 0: at p = 1 nothing is kept anyway
    return torch.where(keep, x * scale, torch.zeros_like(x))  # dropped means exactly 0, even where x is inf
