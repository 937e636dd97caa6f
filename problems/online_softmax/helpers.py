"""Validation for the online-softmax problem, supplied to every solution (`from helpers import ...`).
Each function raises exactly the errors the contract promises; call it first, then compute."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_block_size(block_size):
    """block_size: a Python int >= 1 (a bool is not one)."""
    if isinstance(block_size, bool) or not isinstance(block_size, int):
        raise TypeError(f"block_size must be a Python int, got {type(block_size).__name__}")
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1, got {block_size}")


def check_logits(x, block_size):
    """x: float32/float64 [..., N] with N >= 1; entries finite or -inf (a masked entry); no nan, no +inf."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in FLOAT_DTYPES:
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if x.dim() < 1 or x.shape[-1] < 1:
        raise ValueError(f"x must be [..., N] with N >= 1 entries per row, got shape {tuple(x.shape)}")
    if x.device.type != "meta":
        values = x.detach()
        if bool(torch.isnan(values).any()) or bool((values == float("inf")).any()):
            raise ValueError("x may hold finite values and -inf (masked entries), but not nan or +inf")
    check_block_size(block_size)


def check_attention_inputs(q, k, v, block_size, causal):
    """q [..., Lq, D], k [..., Lk, D], v [..., Lk, Dv], one float dtype and device, finite, with Lk >= Lq >= 1
    (the queries are the last Lq of the Lk positions) and D, Dv >= 1; block_size an int >= 1; causal a bool."""
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
    if q.shape[-1] < 1 or k.shape[-1] != q.shape[-1] or v.shape[-1] < 1:
        raise ValueError(f"q and k need the same feature size D >= 1 and v a size Dv >= 1, got shapes "
                         f"{tuple(q.shape)}, {tuple(k.shape)} and {tuple(v.shape)}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v need the same number of keys Lk, got {k.shape[-2]} and {v.shape[-2]}")
    if q.shape[-2] < 1 or k.shape[-2] < q.shape[-2]:
        raise ValueError(f"need 1 <= Lq <= Lk (the queries are the last Lq of the Lk positions), got Lq = "
                         f"{q.shape[-2]} and Lk = {k.shape[-2]}")
    if q.device.type != "meta":
        if not all(bool(torch.isfinite(t.detach()).all()) for t in (q, k, v)):
            raise ValueError("q, k and v must contain only finite values")
    check_block_size(block_size)
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
