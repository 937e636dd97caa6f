"""Validation for the sampling problem, supplied to every solution (`from helpers import ...`). Each function raises
exactly the errors the contract promises; call them first, then compute."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_logits(logits):
    """logits is a float32/float64 tensor [..., V] with V >= 1 and finite entries."""
    if not isinstance(logits, torch.Tensor):
        raise TypeError(f"logits must be a torch.Tensor, got {type(logits).__name__}")
    if logits.dtype not in FLOAT_DTYPES:
        raise TypeError(f"logits must be float32 or float64, got {logits.dtype}")
    if logits.dim() < 1 or logits.shape[-1] < 1:
        raise ValueError(f"logits must have a last dimension of at least one token, got shape {tuple(logits.shape)}")
    if logits.device.type != "meta" and not bool(torch.isfinite(logits.detach()).all()):
        raise ValueError("logits has non-finite entries (nan or inf)")


def check_options(temperature, top_k, top_p):
    """temperature: a Python real >= 0; top_k: a Python int >= 0 (0 = off); top_p: a Python real in [0, 1].

    Returns (temperature, top_k, top_p) as (float, int, float)."""
    if isinstance(temperature, bool) or not isinstance(temperature, int | float):
        raise TypeError(f"temperature must be a Python int or float, got {type(temperature).__name__}")
    if not math.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be finite and >= 0, got {temperature}")
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise TypeError(f"top_k must be a Python int, got {type(top_k).__name__}")
    if top_k < 0:
        raise ValueError(f"top_k must be >= 0 (0 turns the filter off), got {top_k}")
    if isinstance(top_p, bool) or not isinstance(top_p, int | float):
        raise TypeError(f"top_p must be a Python int or float, got {type(top_p).__name__}")
    if not 0 <= top_p <= 1:  # also refuses nan
        raise ValueError(f"top_p must lie in [0, 1], got {top_p}")
    return float(temperature), top_k, float(top_p)


def check_uniform(uniform, logits):
    """uniform is a float32/float64 tensor shaped like logits without its last dimension, on logits' device, with
    every entry in [0, 1)."""
    if not isinstance(uniform, torch.Tensor):
        raise TypeError(f"uniform must be a torch.Tensor, got {type(uniform).__name__}")
    if uniform.dtype not in FLOAT_DTYPES:
        raise TypeError(f"uniform must be float32 or float64, got {uniform.dtype}")
    if uniform.device != logits.device:
        raise ValueError(f"uniform is on {uniform.device} but logits is on {logits.device}")
    if tuple(uniform.shape) != tuple(logits.shape[:-1]):
        raise ValueError(f"uniform must have shape {tuple(logits.shape[:-1])} (one draw per row of logits), "
                         f"got {tuple(uniform.shape)}")
    if uniform.device.type != "meta":
        u = uniform.detach()
        if not bool(torch.isfinite(u).all()) or bool(((u < 0) | (u >= 1)).any()):
            raise ValueError("uniform must hold values in [0, 1)")
