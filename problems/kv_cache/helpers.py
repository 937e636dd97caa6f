"""Validation for the key/value cache problem, supplied to every solution (`from helpers import ...`).

Every tensor is 4-D in the cache layout [B, H, T, D]: batch, heads, time (positions), features. Each function
raises exactly the errors the contract promises; call it first, then compute."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)
AXES = ("B", "H", "T", "D")  # the axis names used in the messages


def _check_tensors(named):
    """named: [(name, tensor, (four size symbols))]. TypeError unless every tensor is float32/float64 of one dtype;
    ValueError unless each is 4-D, on one device, with finite values, and every size symbol means one size."""
    for name, t, _ in named:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    dtypes = {t.dtype for _, t, _ in named}
    if len(dtypes) > 1:
        raise TypeError("all tensors must share one dtype, got " + ", ".join(f"{n} {t.dtype}" for n, t, _ in named))
    for name, t, symbols in named:
        if t.dim() != 4:
            raise ValueError(f"{name} must be 4-D [B, H, {symbols[2]}, {symbols[3]}] (batch, heads, time, "
                             f"features), got shape {tuple(t.shape)}")
    devices = {t.device for _, t, _ in named}
    if len(devices) > 1:
        raise ValueError("all tensors must be on one device, got " + ", ".join(f"{n} on {t.device}"
                                                                              for n, t, _ in named))
    seen = {}  # symbol -> (size, name, axis)
    for name, t, symbols in named:
        for axis, (symbol, size) in enumerate(zip(symbols, t.shape, strict=True)):
            if symbol in seen and seen[symbol][0] != size:
                other_size, other, other_axis = seen[symbol]
                raise ValueError(f"{name} has {symbol} = {size} on axis {axis} but {other} has {symbol} = "
                                 f"{other_size} on axis {other_axis}: they must agree (no broadcasting)")
            seen.setdefault(symbol, (size, name, axis))
    for symbol in ("B", "H", "D", "Dv"):
        if symbol in seen and seen[symbol][0] < 1:
            raise ValueError(f"{symbol} must be at least 1, got {seen[symbol][0]} in {seen[symbol][1]}")
    # one flag per tensor and a single read of them all (each bool() of a tensor waits for the device)
    flags = [torch.isfinite(t.detach()).all() for _, t, _ in named if t.device.type != "meta"]
    if flags and not bool(torch.stack(flags).all()):
        bad = next(name for name, t, _ in named if not bool(torch.isfinite(t.detach()).all()))
        raise ValueError(f"{bad} has non-finite entries (nan or inf)")
    return {symbol: size for symbol, (size, _, _) in seen.items()}


def check_append(cache_k, cache_v, k_new, v_new):
    """cache_k [B, H, T, D], cache_v [B, H, T, Dv] (T >= 0), k_new [B, H, N, D], v_new [B, H, N, Dv] (N >= 0)."""
    _check_tensors([("cache_k", cache_k, ("B", "H", "T", "D")), ("cache_v", cache_v, ("B", "H", "T", "Dv")),
                    ("k_new", k_new, ("B", "H", "N", "D")), ("v_new", v_new, ("B", "H", "N", "Dv"))])


def check_attention(q_new, cache_k, cache_v):
    """q_new [B, H, L, D], cache_k [B, H, T, D], cache_v [B, H, T, Dv], with L <= T: the L queries are the last L
    positions of the cache."""
    sizes = _check_tensors([("q_new", q_new, ("B", "H", "L", "D")), ("cache_k", cache_k, ("B", "H", "T", "D")),
                            ("cache_v", cache_v, ("B", "H", "T", "Dv"))])
    if sizes["L"] > sizes["T"]:
        raise ValueError(f"q_new has L = {sizes['L']} queries but the cache holds only T = {sizes['T']} positions: "
                         "the queries are the last L positions of the cache, so L <= T (append first)")


def check_decode(cache_k, cache_v, q_new, k_new, v_new):
    """cache_k [B, H, P, D], cache_v [B, H, P, Dv] (P >= 0), and L new tokens: q_new, k_new [B, H, L, D],
    v_new [B, H, L, Dv] (L >= 0)."""
    _check_tensors([("cache_k", cache_k, ("B", "H", "P", "D")), ("cache_v", cache_v, ("B", "H", "P", "Dv")),
                    ("q_new", q_new, ("B", "H", "L", "D")), ("k_new", k_new, ("B", "H", "L", "D")),
                    ("v_new", v_new, ("B", "H", "L", "Dv"))])
