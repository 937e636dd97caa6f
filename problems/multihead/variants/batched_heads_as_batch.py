"""Variant: heads folded into the batch axis ([B * H, L, d_head]) and torch.bmm, as many implementations do."""

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

    def fold(t):  # (B, L, d) -> (B * H, L, d_head)
        return t.reshape(batch, length, num_heads, d_head).permute(0, 2, 1, 3).reshape(batch * num_heads, length,
                                                                                          d_head)

    q, k, v = fold(x @ w_q.T), fold(x @ w_k.T), fold(x @ w_v.T)
    scores = torch.bmm(q, k.transpose(1, 2)) * d_head ** -0.5
    if causal:
        scores = scores + torch.full((length, length), float("-inf"), dtype=x.dtype).triu(1)
    if length:
        scores = scores - scores.amax(dim=-1, keepdim=True).detach()
        scores = scores.exp() / scores.exp().sum(dim=-1, keepdim=True)
    heads = torch.bmm(scores, v).reshape(batch, num_heads, length, d_head).permute(0, 2, 1, 3)
    return heads.reshape(batch, length, d_model) @ w_o.T
