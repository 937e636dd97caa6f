"""Reference scaled dot-product attention (Vaswani et al., 2017, Eq. 1). Hidden from learners; the checks compare
submissions with it."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_qkv(q, k, v):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
        if t.dim() < 2:
            raise ValueError(f"{name} must have at least 2 dimensions [..., L, features], got shape {tuple(t.shape)}")
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k and v must share a dtype, got {q.dtype}, {k.dtype} and {v.dtype}")
    if not (q.device == k.device == v.device):
        raise ValueError(f"q, k and v must be on one device, got {q.device}, {k.device} and {v.device}")
    if not (q.shape[:-2] == k.shape[:-2] == v.shape[:-2]):
        raise ValueError(f"q, k and v must have the same leading dimensions, got shapes {tuple(q.shape)}, "
                         f"{tuple(k.shape)} and {tuple(v.shape)}")
    if q.shape[-1] < 1 or k.shape[-1] != q.shape[-1]:
        raise ValueError(f"q and k need the same feature size D >= 1, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v need the same number of keys Lk, got {k.shape[-2]} and {v.shape[-2]}")
    if not (torch.isfinite(q).all() and torch.isfinite(k).all() and torch.isfinite(v).all()):
        raise ValueError("q, k and v must contain only finite values")


def _check_mask(mask, scores_shape, device):
    if mask is None:
        return
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be None or a torch.Tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool tensor (True = may attend), got {mask.dtype}")
    if mask.device != device:
        raise ValueError(f"mask must be on the inputs' device {device}, got {mask.device}")
    # Broadcasting aligns shapes from the right; each mask size must be 1 or the scores' size there. (Written
    # out because torch.broadcast_shapes costs ~0.7 s the first time a process calls it.)
    fits = mask.dim() <= len(scores_shape) and all(
        m in (1, s) for m, s in zip(reversed(mask.shape), reversed(scores_shape), strict=False))
    if not fits:
        raise ValueError(f"mask of shape {tuple(mask.shape)} does not broadcast to the scores' shape "
                         f"[..., Lq, Lk] = {list(scores_shape)}")


def _softmax_last(scores):
    """Stable softmax over the last axis: shift each row by its (detached) maximum so exp never overflows.
    Written out because torch.softmax splits even a 3 x 4 tensor across threads, which on a busy 2-core
    grader cost ~10 ms a call against ~0.05 ms for these four operations."""
    if scores.shape[-1] == 0:
        return scores
    top = scores.detach().amax(dim=-1, keepdim=True)  # a constant shift: softmax does not depend on it
    exps = torch.exp(scores - top)
    return exps / exps.sum(dim=-1, keepdim=True)


def scaled_dot_product_attention(q, k, v, mask=None):
    _check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])  # (..., Lq, Lk)
    _check_mask(mask, scores_shape, q.device)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., Lq, D) x (..., D, Lk) -> (..., Lq, Lk)
    if mask is None:
        weights = _softmax_last(scores)  # over the keys: each query's weights sum to 1
        return weights @ v  # (..., Lq, Lk) x (..., Lk, Dv) -> (..., Lq, Dv)
    mask = mask.expand(scores_shape)
    has_key = mask.any(dim=-1, keepdim=True)  # (..., Lq, 1): False for a query with no allowed key
    scores = scores.masked_fill(~mask, float("-inf"))
    # A query with no allowed key has a row of -inf, and softmax of it is 0 / 0 = NaN, in value and gradient.
    # Give that row a finite placeholder before the softmax and zero weights after it: its output is 0 and no
    # gradient (NaN or otherwise) flows back through it.
    scores = scores.masked_fill(~has_key, 0.0)
    weights = _softmax_last(scores).masked_fill(~has_key, 0.0)
    return weights @ v
