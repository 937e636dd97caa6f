"""Scaled dot-product attention: the validation helpers, supplied and read-only.

`from helpers import check_mask, check_qkv` in your solution."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_qkv(q, k, v):
    """Raise TypeError / ValueError unless q [..., Lq, D], k [..., Lk, D], v [..., Lk, Dv] fit the contract."""
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


def check_mask(mask, scores_shape, device):
    """Raise TypeError unless mask is None or a bool tensor, ValueError unless it broadcasts to scores_shape."""
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
