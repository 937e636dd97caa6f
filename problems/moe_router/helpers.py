"""Validation for the mixture-of-experts router problem, supplied to every solution (`from helpers import ...`).
Each function raises exactly the errors the contract promises; call them first, then compute."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_router_logits(logits, k, *, min_tokens=0):
    """logits: float32/float64 [N, E] with N >= min_tokens, E >= 1, finite. k: a Python int in [1, E]."""
    if not isinstance(logits, torch.Tensor):
        raise TypeError(f"logits must be a torch.Tensor, got {type(logits).__name__}")
    if logits.dtype not in FLOAT_DTYPES:
        raise TypeError(f"logits must be float32 or float64, got {logits.dtype}")
    if logits.dim() != 2 or logits.shape[1] < 1 or logits.shape[0] < min_tokens:
        raise ValueError(f"logits must be [N, E] with N >= {min_tokens} tokens and E >= 1 experts, got shape "
                         f"{tuple(logits.shape)}")
    if logits.device.type != "meta" and not bool(torch.isfinite(logits.detach()).all()):
        raise ValueError("logits has non-finite entries (nan or inf)")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be a Python int, got {type(k).__name__}")
    if not 1 <= k <= logits.shape[1]:
        raise ValueError(f"k must lie in [1, E] = [1, {logits.shape[1]}], got {k}")


def check_assignments(experts, num_experts, capacity):
    """experts: int64 [N, K] (N >= 0, K >= 1) with entries in [0, num_experts); num_experts: a Python int >= 1;
    capacity: a Python int >= 0."""
    for name, value, low in (("num_experts", num_experts, 1), ("capacity", capacity, 0)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be a Python int, got {type(value).__name__}")
        if value < low:
            raise ValueError(f"{name} must be >= {low}, got {value}")
    if not isinstance(experts, torch.Tensor):
        raise TypeError(f"experts must be a torch.Tensor, got {type(experts).__name__}")
    if experts.dtype != torch.int64:
        raise TypeError(f"experts must be int64, got {experts.dtype}")
    if experts.dim() != 2 or experts.shape[1] < 1:
        raise ValueError(f"experts must be [N, K] with K >= 1 choices per token, got shape {tuple(experts.shape)}")
    if experts.device.type != "meta" and bool(((experts < 0) | (experts >= num_experts)).any()):
        raise ValueError(f"experts must lie in [0, num_experts) = [0, {num_experts})")
