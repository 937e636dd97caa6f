"""Sliding-window attention: the validation helpers, supplied and read-only.

`from helpers import check_length_and_window, check_mask_and_padding, check_attention_inputs` in your solution.
Each raises exactly what the contract promises: TypeError for the wrong kind of value, ValueError for a value
out of range."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_int(name, value, low):
    """A Python int (bool is not one) of at least `low`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a Python int, got {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")


def check_window(window):
    """window: a Python int >= 1 (the number of keys a query may see, itself included)."""
    _check_int("window", window, 1)


def check_length_and_window(T, window):
    """T: a Python int >= 0 (the sequence length); window: a Python int >= 1."""
    _check_int("T", T, 0)
    check_window(window)


def _check_bool(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype != torch.bool:
        raise TypeError(f"{name} must be a bool tensor (True = allowed / real token), got {t.dtype}")


def check_mask_and_padding(mask, key_padding):
    """mask: bool [Tq, Tk] (True = may attend); key_padding: bool [B, Tk] (True = real token), same device."""
    _check_bool("mask", mask)
    _check_bool("key_padding", key_padding)
    if mask.dim() != 2:
        raise ValueError(f"mask must be 2-D [Tq, Tk], got shape {tuple(mask.shape)}")
    if key_padding.dim() != 2 or key_padding.shape[1] != mask.shape[1]:
        raise ValueError(f"key_padding must be [B, Tk] with Tk = {mask.shape[1]} (the mask's keys), got shape "
                         f"{tuple(key_padding.shape)}")
    if key_padding.device != mask.device:
        raise ValueError(f"mask and key_padding must be on one device, got {mask.device} and {key_padding.device}")


def check_attention_inputs(q, k, v, window, key_padding=None):
    """q, k: [B, H, T, D], v: [B, H, T, Dv] (one float dtype, one device, finite); window: a Python int >= 1;
    key_padding: None or bool [B, T] on the same device."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
        if t.dim() != 4:
            raise ValueError(f"{name} must be 4-D [B, H, T, features], got shape {tuple(t.shape)}")
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k and v must share a dtype, got {q.dtype}, {k.dtype} and {v.dtype}")
    if not (q.device == k.device == v.device):
        raise ValueError(f"q, k and v must be on one device, got {q.device}, {k.device} and {v.device}")
    if q.shape[1] < 1:
        raise ValueError(f"q, k and v need at least one head (H >= 1), got shape {tuple(q.shape)}")
    if k.shape != q.shape or q.shape[-1] < 1:
        raise ValueError(f"k must have q's shape [B, H, T, D] with D >= 1, got {tuple(q.shape)} and "
                         f"{tuple(k.shape)}")
    if v.shape[:-1] != q.shape[:-1] or v.shape[-1] < 1:
        raise ValueError(f"v must be [B, H, T, Dv] with q's B, H, T and Dv >= 1, got {tuple(v.shape)} for q "
                         f"{tuple(q.shape)}")
    if not (torch.isfinite(q).all() and torch.isfinite(k).all() and torch.isfinite(v).all()):
        raise ValueError("q, k and v must contain only finite values")
    check_window(window)
    if key_padding is None:
        return
    _check_bool("key_padding", key_padding)
    if key_padding.device != q.device:
        raise ValueError(f"key_padding must be on the inputs' device {q.device}, got {key_padding.device}")
    if tuple(key_padding.shape) != (q.shape[0], q.shape[2]):
        raise ValueError(f"key_padding must be [B, T] = [{q.shape[0]}, {q.shape[2]}], got shape "
                         f"{tuple(key_padding.shape)}")
