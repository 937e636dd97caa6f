"""Clipping the global gradient norm: the validation helpers, supplied and read-only.

`from helpers import check_grads, check_settings` in your solution."""

import math

import torch


def check_grads(grads):
    """The tensors among grads (None skipped). TypeError for a non-sequence, an entry that is neither a tensor
    nor None, a dtype other than float32/float64 or mixed dtypes; ValueError for mixed devices or nan/inf."""
    if not isinstance(grads, list | tuple):
        raise TypeError(f"grads must be a list or tuple of tensors (or None), got {type(grads).__name__}")
    tensors = []
    for index, grad in enumerate(grads):
        if grad is None:
            continue
        if not isinstance(grad, torch.Tensor):
            raise TypeError(f"grads[{index}] must be a torch.Tensor or None, got {type(grad).__name__}")
        if grad.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"grads[{index}] must be float32 or float64, got {grad.dtype}")
        if tensors and grad.dtype != tensors[0].dtype:
            raise TypeError(f"every gradient must share one dtype, got {tensors[0].dtype} and {grad.dtype}")
        if tensors and grad.device != tensors[0].device:
            raise ValueError(f"every gradient must be on one device, got {tensors[0].device} and {grad.device}")
        if not torch.isfinite(grad).all():
            raise ValueError(f"grads[{index}] contains nan or inf, so the total norm is not finite")
        tensors.append(grad)
    return tensors


def check_settings(max_norm, eps):
    """TypeError unless both are Python ints/floats (not bool); ValueError unless finite, max_norm > 0, eps >= 0."""
    for name, value in (("max_norm", max_norm), ("eps", eps)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value}")
    if max_norm <= 0:
        raise ValueError(f"max_norm must be > 0, got {max_norm}")
    if eps < 0:
        raise ValueError(f"eps must be >= 0, got {eps}")
