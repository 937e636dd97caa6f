"""Reference multi-head self-attention (Vaswani et al., 2017, section 3.2.2). Hidden from learners; the checks
compare submissions with it."""

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


def _softmax_last(scores):
    """Stable softmax over the last axis (torch.softmax splits even tiny tensors across threads, which on a busy
    2-core grader cost ~10 ms a call)."""
    if scores.shape[-1] == 0:
        return scores
    top = scores.detach().amax(dim=-1, keepdim=True)
    exps = torch.exp(scores - top)
    return exps / exps.sum(dim=-1, keepdim=True)


def _split_heads(t, num_heads):
    """(B, L, d_model) -> (B, H, L, d_head): head h holds features h * d_head .. (h + 1) * d_head - 1."""
    batch, length, d_model = t.shape
    return t.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    _check_inputs(x, w_q, w_k, w_v, w_o)
    _check_options(num_heads, causal, x.shape[-1])
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    q = _split_heads(x @ w_q.T, num_heads)  # nn.Linear convention: x W^T
    k = _split_heads(x @ w_k.T, num_heads)
    v = _split_heads(x @ w_v.T, num_heads)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)  # (B, H, L, L), scaled by the head size
    if causal:
        allowed = torch.ones(length, length, dtype=torch.bool, device=x.device).tril()  # j <= i
        scores = scores.masked_fill(~allowed, float("-inf"))  # every row keeps its diagonal: never all -inf
    heads = _softmax_last(scores) @ v  # (B, H, L, d_head)
    concatenated = heads.transpose(1, 2).reshape(batch, length, d_model)  # heads back in order 0 .. H - 1
    return concatenated @ w_o.T
