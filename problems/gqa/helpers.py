"""Grouped-query attention: the validation helpers, supplied and read-only.

`from helpers import check_mask, check_projection, check_qkv` in your solution."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_qkv(q, k, v):
    """Raise TypeError / ValueError unless q [..., H, Lq, D], k [..., G, Lk, D], v [..., G, Lk, Dv] fit the
    contract, G >= 1 dividing H."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
        if t.dim() < 3:
            raise ValueError(f"{name} must have at least 3 dimensions [..., heads, L, features], "
                             f"got shape {tuple(t.shape)}")
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k and v must share a dtype, got {q.dtype}, {k.dtype} and {v.dtype}")
    if not (q.device == k.device == v.device):
        raise ValueError(f"q, k and v must be on one device, got {q.device}, {k.device} and {v.device}")
    if not (q.shape[:-3] == k.shape[:-3] == v.shape[:-3]):
        raise ValueError(f"q, k and v must have the same leading dimensions, got shapes {tuple(q.shape)}, "
                         f"{tuple(k.shape)} and {tuple(v.shape)}")
    num_heads, num_groups = q.shape[-3], k.shape[-3]
    if v.shape[-3] != num_groups:
        raise ValueError(f"k and v need the same number of key/value heads G, got {num_groups} and {v.shape[-3]}")
    if num_heads < 1 or num_groups < 1 or num_heads % num_groups:
        raise ValueError(f"the {num_groups} key/value heads must divide the {num_heads} query heads "
                         f"(G >= 1 and H % G == 0)")
    if q.shape[-1] < 1 or k.shape[-1] != q.shape[-1]:
        raise ValueError(f"q and k need the same feature size D >= 1, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v need the same number of keys Lk, got {k.shape[-2]} and {v.shape[-2]}")
    if not (torch.isfinite(q).all() and torch.isfinite(k).all() and torch.isfinite(v).all()):
        raise ValueError("q, k and v must contain only finite values")


def check_mask(mask, scores_shape, device):
    """Raise TypeError unless mask is None or a bool tensor, ValueError unless it broadcasts to scores_shape
    [..., H, Lq, Lk]."""
    if mask is None:
        return
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be None or a torch.Tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool tensor (True = may attend), got {mask.dtype}")
    if mask.device != device:
        raise ValueError(f"mask must be on the inputs' device {device}, got {mask.device}")
    # Broadcasting aligns shapes from the right; each mask size must be 1 or the scores' size there.
    fits = mask.dim() <= len(scores_shape) and all(
        m in (1, s) for m, s in zip(reversed(mask.shape), reversed(scores_shape), strict=False))
    if not fits:
        raise ValueError(f"mask of shape {tuple(mask.shape)} does not broadcast to the scores' shape "
                         f"[..., H, Lq, Lk] = {list(scores_shape)}")


def _check_count(name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a Python int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")


def check_projection(w, num_heads, num_groups):
    """Raise TypeError / ValueError unless w is a finite [H * Dh, d_model] projection weight and G divides H."""
    if not isinstance(w, torch.Tensor):
        raise TypeError(f"w must be a torch.Tensor, got {type(w).__name__}")
    if w.dtype not in FLOAT_DTYPES:
        raise TypeError(f"w must be float32 or float64, got {w.dtype}")
    _check_count("num_heads", num_heads)
    _check_count("num_groups", num_groups)
    if w.dim() != 2 or w.shape[1] < 1:
        raise ValueError(f"w must be 2-D [num_heads * head_dim, d_model] with d_model >= 1, "
                         f"got shape {tuple(w.shape)}")
    if w.shape[0] < num_heads or w.shape[0] % num_heads:
        raise ValueError(f"w has {w.shape[0]} rows: that is not num_heads = {num_heads} heads of a head_dim >= 1")
    if num_heads % num_groups:
        raise ValueError(f"num_groups = {num_groups} must divide num_heads = {num_heads}")
    if not torch.isfinite(w).all():
        raise ValueError("w must contain only finite values")
