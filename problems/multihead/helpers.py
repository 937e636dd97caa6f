"""Multi-head attention's validation helpers, supplied and read-only:
`from helpers import check_inputs, check_options`."""

import torch


def check_inputs(x, w_q, w_k, w_v, w_o):
    """Raise TypeError / ValueError unless x is a finite [B, L, d_model] tensor and each weight [d_model, d_model]."""
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


def check_options(num_heads, causal, d_model):
    """Raise TypeError / ValueError unless num_heads is an int dividing d_model and causal a bool."""
    if isinstance(num_heads, bool) or not isinstance(num_heads, int):
        raise TypeError(f"num_heads must be a Python int, got {type(num_heads).__name__}")
    if num_heads < 1 or d_model % num_heads:
        raise ValueError(f"num_heads must be >= 1 and divide d_model = {d_model}, got {num_heads}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a Python bool, got {type(causal).__name__}")
