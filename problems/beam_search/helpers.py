"""Validation for the beam search problem, supplied to every solution (`from helpers import ...`). Each function
raises exactly the errors the contract promises; call it first, then search."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_search_args(log_probs, bos, eos, beam_size, max_len, alpha):
    """log_probs: float32/float64 [V, V], V >= 1, finite, every entry <= 0. bos, eos: Python ints in [0, V).
    beam_size, max_len: Python ints >= 1. alpha: a Python real, finite, >= 0. Returns alpha as a float."""
    if not isinstance(log_probs, torch.Tensor):
        raise TypeError(f"log_probs must be a torch.Tensor, got {type(log_probs).__name__}")
    if log_probs.dtype not in FLOAT_DTYPES:
        raise TypeError(f"log_probs must be float32 or float64, got {log_probs.dtype}")
    if log_probs.dim() != 2 or log_probs.shape[0] != log_probs.shape[1] or log_probs.shape[0] < 1:
        raise ValueError(f"log_probs must be a square [V, V] table with V >= 1 (row: the previous token, column: "
                         f"the next), got shape {tuple(log_probs.shape)}")
    if log_probs.device.type != "meta":
        table = log_probs.detach()
        if not bool(torch.isfinite(table).all()):
            raise ValueError("log_probs has non-finite entries (nan or inf); use a large negative number instead")
        if bool((table > 0).any()):
            raise ValueError("log_probs holds log-probabilities: every entry must be <= 0")
    V = log_probs.shape[0]
    for name, value, low in (("bos", bos, 0), ("eos", eos, 0), ("beam_size", beam_size, 1), ("max_len", max_len, 1)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be a Python int, got {type(value).__name__}")
        if value < low:
            raise ValueError(f"{name} must be >= {low}, got {value}")
    for name, value in (("bos", bos), ("eos", eos)):
        if value >= V:
            raise ValueError(f"{name} must be a token of the vocabulary, in [0, {V}), got {value}")
    if isinstance(alpha, bool) or not isinstance(alpha, int | float):
        raise TypeError(f"alpha must be a Python int or float, got {type(alpha).__name__}")
    if not math.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be finite and >= 0, got {alpha}")
    return float(alpha)
