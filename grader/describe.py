"""Compact, learner-readable descriptions of values: 'float32[2, 3] [[1.0, 0.0, 0.0], ...]'."""

from __future__ import annotations

from typing import Any

import torch

SMALL_TENSOR = 8  # elements; larger tensors are described by dtype and shape only


def tensor_kind(t: torch.Tensor) -> str:
    dtype = str(t.dtype).removeprefix("torch.")
    shape = ", ".join(str(size) for size in t.shape)
    suffix = []
    if t.device.type != "cpu":
        suffix.append(f"on {t.device}")
    if t.requires_grad:
        suffix.append("requires_grad")
    if isinstance(t, torch.nn.Parameter):
        suffix.append("Parameter")
    elif t.dim() > 1 and not t.is_contiguous():
        suffix.append(f"strides {tuple(t.stride())}")
    extra = f" ({', '.join(suffix)})" if suffix else ""
    return f"{dtype}[{shape}]{extra}"


def format_values(t: torch.Tensor) -> str:
    values = t.detach().to("cpu")
    if values.dtype in (torch.float16, torch.bfloat16):
        values = values.float()
    return _nested(values.tolist())


def _nested(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_nested(item) for item in value) + "]"
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value)


def describe(value: Any, *, compact: bool = False) -> str:
    if isinstance(value, torch.Tensor):
        kind = tensor_kind(value)
        if value.numel() <= (4 if compact else SMALL_TENSOR) and value.device.type != "meta":  # meta: no values
            return f"{kind} {format_values(value)}"
        return kind
    if isinstance(value, tuple):
        inner = ", ".join(describe(item, compact=compact) for item in value)
        return f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, list):
        return "[" + ", ".join(describe(item, compact=compact) for item in value) + "]"
    if isinstance(value, float):
        return f"{value:.6g}" if compact else repr(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
