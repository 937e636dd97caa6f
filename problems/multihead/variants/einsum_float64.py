"""Variant: einsum over named axes in float64, with a logsumexp-based softmax, cast back at the end."""

import math

import torch


def _check_inputs(x, w_q, w_k, w_v, w_o):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if x.dim() != 3 or x.shape[-1] < 1:
        raise ValueError(f"x must be [B, L, d_model] with d_model >= 1, got shape {tuple(x.shape)}")
    d_model = x.shape[-1]
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v), ("w_o", w_o)):
        if not isinstance(w, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(w).__name__}")
        if w.dtype != x.dtype:
            raise TypeError(f"{name} must have x's dtype {x.dtype}, got {w.dtype}")
        if w.device != x.device:
            raise ValueError(f"{name} must be on x's device {x.device}, got {w.device}")
        if tuple(w.shape) != (d_model, d_model):
            raise ValueError(f"{name} must be [d_model, d_model] = [{d_model}, {d_model}], got {tuple(w.shape)}")
        if not torch.isfinite(w).all():
            raise ValueError(f"{name} must contain only finite values")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")


def _check_options(num_heads, causal, d_model):
    if isinstance(num_heads, bool) or not isinstance(num_heads, int):
        raise TypeError(f"num_heads must be a Python int, got {type(num_heads).__name__}")
    if num_heads < 1 or d_model % num_heads:
        raise ValueError(f"num_heads must be >= 1 and divide d_model = {d_model}, got {num_heads}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a Python bool, got {type(causal).__name__}")


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    _check_inputs(x, w_q, w_k, w_v, w_o)
    _check_options(num_heads, causal, x.shape[-1])
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    h64 = x.double()
    q, k, v = (torch.einsum("bld,ed->ble", h64, w.double()).reshape(batch, length, num_heads, d_head)
               for w in (w_q, w_k, w_v))
    scores = torch.einsum("bihd,bjhd->bhij", q, k) / math.sqrt(d_head)
    if causal:
        scores = scores.masked_fill(torch.ones(length, length, dtype=torch.bool).triu(1), float("-inf"))
    weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True)) if length else scores
    heads = torch.einsum("bhij,bjhd->bihd", weights, v).reshape(batch, length, d_model)
    return torch.einsum("bld,ed->ble", heads, w_o.double()).to(x.dtype)
