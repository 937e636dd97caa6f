"""Its own validation; a two-sided sigmoid that only exponentiates -|x|; the block one hidden unit at a time."""

import math

import torch


def _require_float(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a tensor")
    if t.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"{name}: expected float32 or float64")


def _require_finite(name, t):
    if t.device.type != "meta" and not torch.isfinite(t.detach()).all():
        raise ValueError(f"{name}: nan or inf")


def _silu(x):
    z = torch.exp(-x.abs())  # in (0, 1]: never overflows, and neither does its gradient
    sigmoid = torch.where(x >= 0, 1 / (1 + z), z / (1 + z))
    return x * sigmoid


def silu(x):
    _require_float("x", x)
    _require_finite("x", x)
    return _silu(x)


def swiglu_ffn(x, w_gate, w_up, w_down):
    named = {"x": x, "w_gate": w_gate, "w_up": w_up, "w_down": w_down}
    for name, t in named.items():
        _require_float(name, t)
        if t.dtype != x.dtype:
            raise TypeError(f"{name}: dtype differs from x")
    if x.dim() == 0 or x.shape[-1] == 0:
        raise ValueError("x: needs a non-empty last axis")
    d, h = x.shape[-1], w_gate.shape[0] if w_gate.dim() == 2 else 0
    shapes = {"w_gate": (h, d), "w_up": (h, d), "w_down": (d, h)}
    if h == 0 or any(tuple(named[name].shape) != shape for name, shape in shapes.items()):
        raise ValueError("weights: shapes do not fit x")
    if any(t.device != x.device for t in named.values()):
        raise ValueError("weights: another device")
    for name, t in named.items():
        _require_finite(name, t)
    out = torch.zeros(x.shape, dtype=x.dtype, device=x.device)
    for j in range(h):  # each hidden unit adds its own rank-one contribution
        gate = (x * w_gate[j]).sum(dim=-1, keepdim=True)
        up = (x * w_up[j]).sum(dim=-1, keepdim=True)
        out = out + (_silu(gate) * up) * w_down[:, j]
    return out


def llama_hidden_dim(d_model, multiple_of=256, ffn_dim_multiplier=None):
    for name, value in (("d_model", d_model), ("multiple_of", multiple_of)):
        if type(value) is not int:
            raise TypeError(f"{name}: expected an int")
        if value < 1:
            raise ValueError(f"{name}: must be positive")
    hidden = 8 * d_model // 3
    if ffn_dim_multiplier is not None:
        if type(ffn_dim_multiplier) not in (int, float):
            raise TypeError("ffn_dim_multiplier: expected a number")
        if not (math.isfinite(ffn_dim_multiplier) and ffn_dim_multiplier > 0):
            raise ValueError("ffn_dim_multiplier: must be finite and positive")
        hidden = int(ffn_dim_multiplier * hidden)
    return math.ceil(hidden / multiple_of) * multiple_of
