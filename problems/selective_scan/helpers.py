"""Selective scan: the validation helpers, supplied and read-only.

`from helpers import check_discretize_inputs, check_scan_inputs` in your solution. Each raises exactly the errors
the contract promises: TypeError for the wrong kind of value (not a tensor, not float32/float64, mixed dtypes),
ValueError for a value out of range (wrong shapes, other devices, nan or inf, A >= 0, delta < 0)."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_tensor(name, t, dtype=None):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    if dtype is not None and t.dtype != dtype:
        raise TypeError(f"{name} must have the dtype of the others, {dtype}, got {t.dtype}")


def _check_shape(name, t, shape, letters):
    if tuple(t.shape) != tuple(shape):
        raise ValueError(f"{name} must have shape [{letters}] = {list(shape)}, got {list(t.shape)}")


def _check_finite(name, t):
    if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


def _check_ranges(delta, A):
    if A.device.type != "meta" and bool((A.detach() >= 0).any()):
        raise ValueError(
            "A must be strictly negative (a decaying state: A_bar = exp(delta * A) < 1); got an entry >= 0"
        )
    if delta.device.type != "meta" and bool((delta.detach() < 0).any()):
        raise ValueError("delta is a step size and must be >= 0 (pass it after softplus); got a negative entry")


def check_discretize_inputs(delta, A, B):
    """delta: [batch, L, D] >= 0; A: [D, N] < 0; B: [batch, L, N]; one float dtype (float32 or float64), one
    device, finite values. batch and L may be 0; D and N are at least 1."""
    _check_tensor("delta", delta)
    _check_tensor("A", A, delta.dtype)
    _check_tensor("B", B, delta.dtype)
    if delta.dim() != 3:
        raise ValueError(f"delta must be 3-D [batch, L, D], got shape {list(delta.shape)}")
    batch, length, channels = delta.shape
    if A.dim() != 2 or A.shape[0] != channels or A.shape[1] < 1 or channels < 1:
        raise ValueError(
            f"A must have shape [D, N] with D = {channels} (delta's last size) and N >= 1, got {list(A.shape)}"
        )
    _check_shape("B", B, (batch, length, A.shape[1]), "batch, L, N")
    for name, t in (("A", A), ("B", B)):
        if t.device != delta.device:
            raise ValueError(f"{name} must be on delta's device {delta.device}, got {t.device}")
    for name, t in (("delta", delta), ("A", A), ("B", B)):
        _check_finite(name, t)
    _check_ranges(delta, A)


def check_scan_inputs(x, delta, A, B, C, D=None, h0=None):
    """x, delta: [batch, L, D], delta >= 0; A: [D, N] < 0; B, C: [batch, L, N]; D: [D] or None; h0: [batch, D, N]
    or None. One float dtype (float32 or float64), one device, finite values. batch and L may be 0; D and N are at
    least 1."""
    _check_tensor("x", x)
    for name, t in (("delta", delta), ("A", A), ("B", B), ("C", C), ("D", D), ("h0", h0)):
        if t is not None or name not in ("D", "h0"):
            _check_tensor(name, t, x.dtype)
    if x.dim() != 3:
        raise ValueError(f"x must be 3-D [batch, L, D], got shape {list(x.shape)}")
    batch, length, channels = x.shape
    _check_shape("delta", delta, (batch, length, channels), "batch, L, D")
    if A.dim() != 2 or A.shape[0] != channels or A.shape[1] < 1 or channels < 1:
        raise ValueError(
            f"A must have shape [D, N] with D = {channels} (x's last size) and N >= 1, got {list(A.shape)}"
        )
    n = A.shape[1]
    _check_shape("B", B, (batch, length, n), "batch, L, N")
    _check_shape("C", C, (batch, length, n), "batch, L, N")
    if D is not None:
        _check_shape("D", D, (channels,), "D")
    if h0 is not None:
        _check_shape("h0", h0, (batch, channels, n), "batch, D, N")
    named = [("delta", delta), ("A", A), ("B", B), ("C", C), ("D", D), ("h0", h0)]
    for name, t in named:
        if t is not None and t.device != x.device:
            raise ValueError(f"{name} must be on x's device {x.device}, got {t.device}")
    for name, t in [("x", x), *named]:
        if t is not None:
            _check_finite(name, t)
    _check_ranges(delta, A)
