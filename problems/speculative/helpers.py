"""Validation for the speculative sampling problem, supplied to every solution (`from helpers import ...`). Each
function raises exactly the errors the contract promises; call them first, then compute."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)
ROW_SUM_TOLERANCE = 1e-4  # |sum - 1| allowed for a probability row: float32 softmax rows are off by ~1e-6


def check_distributions(p, q, *, extra_target_row=False):
    """p and q are float32/float64 tensors of one dtype and device whose last dimension V >= 1 holds probability
    rows (entries in [0, 1], each row summing to 1). Same shape, or with extra_target_row: p [G + 1, V] and
    q [G, V]."""
    for name, tensor in (("p", p), ("q", q)):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if tensor.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {tensor.dtype}")
    if q.dtype != p.dtype:
        raise TypeError(f"q has dtype {q.dtype} but p has {p.dtype}")
    if q.device != p.device:
        raise ValueError(f"q is on {q.device} but p is on {p.device}")
    if extra_target_row:
        if p.dim() != 2 or q.dim() != 2 or p.shape[0] != q.shape[0] + 1 or p.shape[1] != q.shape[1]:
            raise ValueError(f"p must be [G + 1, V] and q [G, V] (one target row per drafted token, plus one), got "
                             f"{tuple(p.shape)} and {tuple(q.shape)}")
    elif p.dim() < 1 or p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape [..., V], got {tuple(p.shape)} and {tuple(q.shape)}")
    if p.shape[-1] < 1:
        raise ValueError("the vocabulary must hold at least one token (V >= 1)")
    for name, tensor in (("p", p), ("q", q)):
        if tensor.device.type == "meta" or tensor.numel() == 0:
            continue
        rows = tensor.detach()
        if not bool(torch.isfinite(rows).all()) or bool(((rows < 0) | (rows > 1)).any()):
            raise ValueError(f"{name} must hold probabilities: finite entries in [0, 1]")
        sums = rows.double().sum(dim=-1)
        if bool(((sums - 1).abs() > ROW_SUM_TOLERANCE).any()):
            raise ValueError(f"every row of {name} must sum to 1 (within {ROW_SUM_TOLERANCE}); one sums to "
                             f"{float(sums.flatten()[((sums - 1).abs()).flatten().argmax()]):.6g}")


def check_draft(draft_tokens, accept_u, sample_u, q):
    """draft_tokens: int64 [G] in [0, V); accept_u: float32/float64 [G] in [0, 1); sample_u: a Python real in
    [0, 1). Returns sample_u as a float."""
    G, V = q.shape
    if not isinstance(draft_tokens, torch.Tensor):
        raise TypeError(f"draft_tokens must be a torch.Tensor, got {type(draft_tokens).__name__}")
    if draft_tokens.dtype != torch.int64:
        raise TypeError(f"draft_tokens must be int64, got {draft_tokens.dtype}")
    if not isinstance(accept_u, torch.Tensor):
        raise TypeError(f"accept_u must be a torch.Tensor, got {type(accept_u).__name__}")
    if accept_u.dtype not in FLOAT_DTYPES:
        raise TypeError(f"accept_u must be float32 or float64, got {accept_u.dtype}")
    if isinstance(sample_u, bool) or not isinstance(sample_u, int | float):
        raise TypeError(f"sample_u must be a Python int or float, got {type(sample_u).__name__}")
    for name, tensor in (("draft_tokens", draft_tokens), ("accept_u", accept_u)):
        if tensor.device != q.device:
            raise ValueError(f"{name} is on {tensor.device} but q is on {q.device}")
        if tuple(tensor.shape) != (G,):
            raise ValueError(f"{name} must have shape ({G},), one entry per drafted token, got {tuple(tensor.shape)}")
    if q.device.type != "meta":
        if bool(((draft_tokens < 0) | (draft_tokens >= V)).any()):
            raise ValueError(f"draft_tokens must lie in [0, {V})")
        u = accept_u.detach()
        if not bool(torch.isfinite(u).all()) or bool(((u < 0) | (u >= 1)).any()):
            raise ValueError("accept_u must hold values in [0, 1)")
    if not (math.isfinite(sample_u) and 0 <= sample_u < 1):
        raise ValueError(f"sample_u must lie in [0, 1), got {sample_u}")
    return float(sample_u)
