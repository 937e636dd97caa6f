"""Legal arguments drawn from a contract, and the same values in other memory layouts.

Every value comes from a seeded torch.Generator: the same check draws the same inputs in every grading.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from grader.contract.schema import (
    DTYPES,
    BoolArg,
    FloatArg,
    FunctionContract,
    IntArg,
    Interval,
    ListArg,
    StrArg,
    TensorArg,
    TensorListArg,
    TupleArg,
)
from grader.contract.sizes import DISTINCT_SIZES, Sizes, fits

LegalInputs = Callable[[dict[str, Any], dict[str, int]], dict[str, Any]]
# Typical magnitudes of drawn values: (0, inf) draws exp(N(0, 0.5^2)) around 1, unbounded floats N(0, 1).
HALF_LINE_SPREAD = 0.5
SCALAR_HALF_LINE = (0.2, 5.0)  # a positive scalar (a temperature, a learning rate multiplier) drawn log-uniformly
# What "any Unicode text" draws from: a few letters (so that pairs repeat), whitespace of each kind, and characters
# of two, three and four UTF-8 bytes.
UNICODE_SAMPLE = "abcab  \t\néß日本😀"


def group_dtypes(contract: FunctionContract, choice: str | None = None) -> dict[str, torch.dtype]:
    """A dtype for every dtype group: `choice` where the group allows it, else its widest allowed dtype."""
    groups: dict[str, list[str]] = {}
    for arg in contract.args.values():
        spec = arg if isinstance(arg, TensorArg) else arg.item if isinstance(arg, TensorListArg) else None
        if spec is None:
            continue
        allowed = groups.setdefault(spec.group, list(spec.dtypes))
        groups[spec.group] = [d for d in allowed if d in spec.dtypes] or allowed
    chosen: dict[str, torch.dtype] = {}
    for group, allowed in groups.items():
        if choice is not None and choice in allowed:
            chosen[group] = DTYPES[choice]
        else:
            chosen[group] = DTYPES["float64" if "float64" in allowed else allowed[-1]]
    return chosen


def allowed_float_dtypes(contract: FunctionContract) -> list[str]:
    """The float dtypes every float group allows (the dtypes check tries each)."""
    names: list[str] | None = None
    for arg in contract.args.values():
        spec = arg if isinstance(arg, TensorArg) else arg.item if isinstance(arg, TensorListArg) else None
        if spec is None or not spec.is_float:
            continue
        names = [d for d in (names if names is not None else spec.dtypes) if d in spec.dtypes]
    return names or []


def draw_arguments(
    contract: FunctionContract,
    sizes: Sizes,
    dtypes: dict[str, torch.dtype],
    generator: torch.Generator,
    legal: LegalInputs | None = None,
    *,
    scalars: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One legal value per argument, in declaration order; `scalars` overrides drawn non-tensor values."""
    scalars = scalars or {}
    args: dict[str, Any] = {}
    for name, arg in contract.args.items():
        if name in scalars:
            args[name] = scalars[name]
        elif isinstance(arg, TensorArg):
            args[name] = draw_tensor(arg, sizes.shape(arg.parsed_shape), dtypes[arg.group], sizes.dims, generator)
        elif isinstance(arg, TensorListArg):
            args[name] = _draw_list(contract, arg, sizes, dtypes[arg.item.group], generator)
        elif isinstance(arg, StrArg):
            args[name] = draw_str(arg, arg.longest_drawn, generator)
        elif isinstance(arg, ListArg):
            args[name] = [draw_scalar(arg.item, sizes.dims, generator) for _ in range(sizes.dims[arg.length])]
        else:
            args[name] = draw_scalar(arg, sizes.dims, generator)
    if legal is not None:
        args = legal(args, dict(sizes.dims))
    return args


def draw_tensor(arg: TensorArg, shape: tuple[int, ...], dtype: torch.dtype, dims: dict[str, int],
                generator: torch.Generator) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.rand(shape, generator=generator, dtype=torch.float64) < 0.5
    interval = arg.interval
    if not dtype.is_floating_point:
        assert interval is not None  # the schema requires a range for an integer tensor
        low, high = int_bounds(interval, dims)
        if high < low:
            return torch.zeros(shape, dtype=dtype)
        return torch.randint(low, high + 1, shape, generator=generator, dtype=torch.int64).to(dtype)
    values = _float_values(interval, shape, dims, generator)
    return values.to(dtype)


def _float_values(interval: Interval | None, shape: tuple[int, ...], dims: dict[str, int],
                  generator: torch.Generator) -> torch.Tensor:
    normal = torch.randn(shape, generator=generator, dtype=torch.float64)
    if interval is None:
        return normal
    low, high = interval.low.number(dims), interval.high.number(dims)
    if math.isinf(low) and math.isinf(high):
        return normal
    if math.isinf(high):
        return low + torch.exp(HALF_LINE_SPREAD * normal) * (1.0 if not interval.low.closed else 0.999)
    if math.isinf(low):
        return high - torch.exp(HALF_LINE_SPREAD * normal)
    uniform = torch.rand(shape, generator=generator, dtype=torch.float64)
    span = high - low
    values = low + span * uniform
    if not interval.low.closed:
        values = values.clamp_min(low + span * 1e-6)
    if not interval.high.closed:
        values = values.clamp_max(high - span * 1e-6)
    return values


def int_bounds(interval: Interval, dims: dict[str, int]) -> tuple[int, int]:
    """The smallest and largest legal int of an interval (an infinite end: 5 beyond the other), the ones drawn."""
    low, high = interval.low.number(dims), interval.high.number(dims)
    if math.isinf(low) and math.isinf(high):
        return -5, 5
    if math.isinf(low):
        low = high - 5.0
    if math.isinf(high):
        high = low + 5.0
    first = math.ceil(low) if interval.low.closed else math.floor(low) + 1
    last = math.floor(high) if interval.high.closed else math.ceil(high) - 1
    return int(first), int(last)


def draw_str(arg: StrArg, length: int, generator: torch.Generator) -> str:
    """`length` characters of the argument's alphabet (or of UNICODE_SAMPLE), uniformly."""
    alphabet = arg.alphabet if arg.alphabet is not None else UNICODE_SAMPLE
    picks = torch.randint(0, len(alphabet), (length,), generator=generator).tolist()
    return "".join(alphabet[i] for i in picks)


def draw_scalar(arg: FloatArg | IntArg | BoolArg | TupleArg, dims: dict[str, int],
                generator: torch.Generator) -> Any:
    if isinstance(arg, BoolArg):
        return bool(torch.rand((), generator=generator) < 0.5)
    if isinstance(arg, TupleArg):
        return tuple(draw_scalar(item, dims, generator) for item in arg.items)
    if isinstance(arg, IntArg):
        if arg.size is not None:
            return dims[arg.size]
        assert arg.interval is not None
        low, high = int_bounds(arg.interval, dims)
        return int(torch.randint(low, max(low, high) + 1, (), generator=generator))
    span = arg.interval
    start, end = span.low.number(dims), span.high.number(dims)
    u = float(torch.rand((), generator=generator, dtype=torch.float64))
    small, large = SCALAR_HALF_LINE
    if math.isinf(start) and math.isinf(end):
        return round(4 * u - 2, 6)
    if math.isinf(end):  # log-uniform above the lower end: a temperature, a scale
        return round(start + small * (large / small) ** u, 6)
    if math.isinf(start):
        return round(end - small * (large / small) ** u, 6)
    return round(start + (end - start) * (0.05 + 0.9 * u), 6)  # well inside: the ends are the edges check's


def edge_scalars(arg: FloatArg | IntArg | BoolArg | TupleArg | StrArg | ListArg, dims: dict[str, int]) -> list[Any]:
    """The values at the edge of an argument's range: closed bounds themselves, open ones approached; for a str,
    the shortest (the empty string) and, where it has one, the longest. A list's edges are its length's sizes."""
    if isinstance(arg, StrArg):
        alphabet = arg.alphabet if arg.alphabet is not None else UNICODE_SAMPLE
        lengths = [arg.min_length] + ([arg.max_length] if arg.max_length is not None else [])
        return [(alphabet * (n // len(alphabet) + 1))[:n] for n in dict.fromkeys(lengths)]
    if isinstance(arg, ListArg):
        return []
    if isinstance(arg, BoolArg):
        return [True, False]
    if isinstance(arg, TupleArg):
        return []  # each item's edges would multiply; tuples get their items' edges through the search
    if isinstance(arg, IntArg):
        if arg.size is not None or arg.interval is None:
            return []
        low, high = int_bounds(arg.interval, dims)
        return sorted({low, high}) if high >= low else []
    span = arg.interval
    out: list[float] = []
    for bound, closed, direction in ((span.low.number(dims), span.low.closed, 1.0),
                                     (span.high.number(dims), span.high.closed, -1.0)):
        if math.isinf(bound):
            continue
        if closed:
            out.append(float(bound))
        else:
            out.append(float(bound) + direction * max(abs(float(bound)) * 1e-3, 1e-3))
    return out


def _draw_list(contract: FunctionContract, arg: TensorListArg, sizes: Sizes, dtype: torch.dtype,
               generator: torch.Generator) -> list[torch.Tensor | None]:
    length = sizes.dims[arg.length]
    local = local_symbols(contract, arg)
    items: list[torch.Tensor | None] = []
    for index in range(length):
        dims = dict(sizes.dims)
        runs = dict(sizes.runs)
        for offset, name in enumerate(sorted(local)):
            if name.startswith("*"):
                ranks = contract.dims[name].drawn_ranks()
                rank = ranks[index % len(ranks)]
                runs[name] = tuple(DISTINCT_SIZES[(index + offset + r) % 5] for r in range(rank))
            else:
                spec = contract.dims[name]
                size = DISTINCT_SIZES[(index + offset) % len(DISTINCT_SIZES)]
                dims[name] = size if fits(name, size, spec, dims) else max(spec.min, 1)
        if arg.none_items and length > 1 and index == 1:
            items.append(None)
            continue
        shape = Sizes(dims, runs).shape(arg.item.parsed_shape)
        items.append(draw_tensor(arg.item, shape, dtype, dims, generator))
    return items


def local_symbols(contract: FunctionContract, arg: TensorListArg) -> set[str]:
    """Symbols (and runs) only this list's elements use: drawn anew for each element."""
    mine = {e if isinstance(e, str) else s for e in arg.item.parsed_shape
            for s in ((e,) if isinstance(e, str) else e.symbols)}
    elsewhere: set[str] = {arg.length}
    for other in contract.args.values():
        spec = other if isinstance(other, TensorArg) else other.item if isinstance(other, TensorListArg) else None
        if spec is None or other is arg:
            continue
        for e in spec.parsed_shape:
            elsewhere.update((e,) if isinstance(e, str) else e.symbols)
        if isinstance(other, IntArg) and other.size:
            elsewhere.add(other.size)
    return mine - elsewhere


# ------------------------------------------------------------------------------------------------- layouts

LAYOUTS = ("transposed", "strided", "expanded", "permuted", "channels_last")
LAYOUT_NAMES = {
    "transposed": "transposed (its last dimension not contiguous)",
    "strided": "a slice with a step (every other row of a larger tensor)",
    "expanded": "expanded (stride 0: one row repeated without copying)",
    "permuted": "stored with its leading dimensions permuted (they cannot be merged without a copy)",
    "channels_last": "channels-last (torch.channels_last memory format)",
}


def in_layout(t: torch.Tensor, layout: str) -> torch.Tensor | None:
    """`t`'s values (repeated along one dimension, for `expanded`) in another memory layout, or None when the
    layout does not apply to its shape."""
    if t.numel() == 0:
        return None
    if layout == "transposed":
        if t.dim() >= 2 and t.shape[-2] > 1:
            return t.transpose(-1, -2).contiguous().transpose(-1, -2)
        if t.dim() >= 1 and t.shape[-1] > 1:  # a vector: every other element of a [n, 2] buffer
            buffer = torch.full((*t.shape, 2), _filler(t.dtype), dtype=t.dtype)
            buffer[..., 0] = t
            return buffer[..., 0]
        return None
    if layout == "strided":
        if t.dim() == 0:
            return None
        buffer = torch.full((2 * t.shape[0], *t.shape[1:]), _filler(t.dtype), dtype=t.dtype)
        buffer[::2] = t
        return buffer[::2]
    if layout == "expanded":
        for dim, size in enumerate(t.shape):
            if size > 1:
                return t.narrow(dim, 0, 1).expand(t.shape)
        return None
    if layout == "permuted":
        if t.dim() >= 3 and t.shape[0] > 1 and t.shape[1] > 1:
            return t.transpose(0, 1).contiguous().transpose(0, 1)
        return None
    if layout == "channels_last":
        if t.dim() == 4 and t.shape[1] > 1 and t.shape[2] * t.shape[3] > 1:
            return t.contiguous(memory_format=torch.channels_last)
        return None
    raise ValueError(f"unknown layout {layout}")


def _filler(dtype: torch.dtype) -> Any:
    """What the bytes between a strided view's elements hold: nan for floats, so reading them shows at once."""
    if dtype.is_floating_point:
        return math.nan
    if dtype == torch.bool:
        return True
    return torch.iinfo(dtype).max if dtype != torch.uint8 else 255


# ------------------------------------------------------------------------------------------------- copying


def fresh(value: Any, *, dtype: torch.dtype | None = None) -> Any:
    """A deep copy with new storage (float tensors cast to `dtype` when given), detached."""
    if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        if dtype is not None and copy.dtype.is_floating_point:
            copy = copy.to(dtype)
        return copy
    if isinstance(value, tuple):
        return tuple(fresh(item, dtype=dtype) for item in value)
    if isinstance(value, list):
        return [fresh(item, dtype=dtype) for item in value]
    if isinstance(value, dict):
        return {key: fresh(item, dtype=dtype) for key, item in value.items()}
    return value


def contiguous_copy(value: Any) -> Any:
    """A copy in plain row-major memory (a clone alone keeps a transposed tensor's strides)."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone(memory_format=torch.contiguous_format)
    if isinstance(value, list):
        return [contiguous_copy(item) for item in value]
    return value


def requiring_grad(value: Any) -> Any:
    """A float tensor copied as a leaf that requires grad (other values as they are)."""
    if isinstance(value, torch.Tensor) and value.dtype.is_floating_point:
        return value.detach().clone().requires_grad_(True)
    return value
