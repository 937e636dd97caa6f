"""Validation for the SwiGLU problem, supplied to every solution (`from helpers import ...`). Each function raises
exactly the errors the contract promises; call it first, then compute."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_float_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def _check_finite(name, t):
    if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


def check_activation_input(x):
    """x: a float32/float64 tensor of any shape (empty included) with finite values."""
    _check_float_tensor("x", x)
    _check_finite("x", x)


def check_ffn_inputs(x, w_gate, w_up, w_down):
    """x: [..., d_model] with d_model >= 1; w_gate and w_up: [d_ff, d_model] with d_ff >= 1; w_down:
    [d_model, d_ff]. All float32/float64 of x's dtype (else TypeError), on x's device, with finite values."""
    tensors = (("x", x), ("w_gate", w_gate), ("w_up", w_up), ("w_down", w_down))
    for name, t in tensors:
        _check_float_tensor(name, t)
    for name, t in tensors[1:]:
        if t.dtype != x.dtype:
            raise TypeError(f"{name} must have x's dtype {x.dtype}, got {t.dtype}")
    if x.dim() < 1 or x.shape[-1] < 1:
        raise ValueError(f"x must be [..., d_model] with d_model >= 1, got shape {tuple(x.shape)}")
    d_model = x.shape[-1]
    if w_gate.dim() != 2 or w_gate.shape[0] < 1 or w_gate.shape[1] != d_model:
        raise ValueError(f"w_gate must be [d_ff, d_model] = [d_ff, {d_model}] with d_ff >= 1 (nn.Linear's "
                         f"[out_features, in_features]), got {tuple(w_gate.shape)}")
    d_ff = w_gate.shape[0]
    if tuple(w_up.shape) != (d_ff, d_model):
        raise ValueError(f"w_up must be [d_ff, d_model] = [{d_ff}, {d_model}] like w_gate, got {tuple(w_up.shape)}")
    if tuple(w_down.shape) != (d_model, d_ff):
        raise ValueError(f"w_down must be [d_model, d_ff] = [{d_model}, {d_ff}], got {tuple(w_down.shape)}")
    for name, t in tensors[1:]:
        if t.device != x.device:
            raise ValueError(f"{name} must be on x's device {x.device}, got {t.device}")
    for name, t in tensors:
        _check_finite(name, t)


def check_hidden_dim_args(d_model, multiple_of, ffn_dim_multiplier):
    """d_model and multiple_of: Python ints >= 1 (a bool is not one); ffn_dim_multiplier: None or a finite
    Python int/float > 0."""
    for name, value in (("d_model", d_model), ("multiple_of", multiple_of)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be a Python int, got {type(value).__name__}")
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    if ffn_dim_multiplier is None:
        return
    if isinstance(ffn_dim_multiplier, bool) or not isinstance(ffn_dim_multiplier, int | float):
        raise TypeError(f"ffn_dim_multiplier must be None or a Python float, got {type(ffn_dim_multiplier).__name__}")
    if not math.isfinite(ffn_dim_multiplier) or ffn_dim_multiplier <= 0:
        raise ValueError(f"ffn_dim_multiplier must be a finite number > 0, got {ffn_dim_multiplier}")
