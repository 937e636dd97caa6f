"""Refusal cases: a legal call with one rule of the contract broken, and the exception that rule promises.

Each candidate is confirmed by grader.contract.legality: it is kept only when it breaks rules that all raise the
same exception type, and none the argument declares `unchecked`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from grader.contract.draw import fresh
from grader.contract.legality import violations
from grader.contract.schema import (
    DTYPES,
    BoolArg,
    FloatArg,
    FunctionContract,
    IntArg,
    ListArg,
    StrArg,
    TensorArg,
    TensorListArg,
    TupleArg,
)
from grader.contract.sizes import Sizes

OTHER_DTYPES = ("float16", "int64", "bool", "float32", "float64", "int32")


@dataclass(frozen=True)
class Refusal:
    args: dict[str, Any]
    reason: str  # why it must be refused, in the learner's terms
    exception: str  # the exception type the contract promises
    rule: str


def refusals(contract: FunctionContract, legal: dict[str, Any], sizes: Sizes,
             draw: Callable[[Sizes], dict[str, Any]]) -> list[Refusal]:
    """Every refusal case of a function, built from one legal call (and, for a size below its minimum, from
    `draw`, which draws arguments of given sizes)."""
    if not contract.validates:
        return []
    found: list[Refusal] = []
    # A case is a duplicate when it breaks the same rule the same way: the same reason from the same intent. Not
    # the reason alone: nan, inf and -inf share "holds nan or infinity", values below and above a range share
    # "holds values outside", and validation that catches one of each pair may miss the other.
    seen: set[tuple[str, str]] = set()
    for args, intent in [*_candidates(contract, legal, sizes), *_below_minimum(contract, sizes, draw)]:
        broken = violations(contract, args)
        if not broken:
            continue
        unchecked = _unchecked(contract)
        if any(rule in unchecked.get(name, ()) for rule in broken for name in _touched(intent)):
            continue
        exceptions = {contract.error_for(rule) for rule in broken}
        if len(exceptions) != 1:
            continue
        rule = next(iter(broken))
        reason = broken[rule]
        if (intent, reason) in seen:
            continue
        seen.add((intent, reason))
        found.append(Refusal(args=args, reason=reason, exception=exceptions.pop(), rule=rule))
    return found


def _below_minimum(contract: FunctionContract, sizes: Sizes,
                   draw: Callable[[Sizes], dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str]]:
    """Each symbol one below its smallest legal size, in every shape at once (D = 0 where D >= 1)."""
    for name, spec in contract.dims.items():
        if name.startswith("*") or spec.min < 1 or not spec.strict or any(
                other.multiple_of == name for other in contract.dims.values()):
            continue
        smaller = sizes.with_dims(f"{name} = {spec.min - 1}", **{name: spec.min - 1})
        try:
            args = draw(smaller)
        except (RuntimeError, ValueError, IndexError, ZeroDivisionError):
            continue  # values cannot be drawn at that size (a range that becomes empty)
        owners = [arg for arg, declared in contract.args.items() if name in _symbols_of(declared)]
        yield args, f"{owners[0] if owners else name}:size"


def _symbols_of(arg: object) -> set[str]:
    spec = arg if isinstance(arg, TensorArg) else arg.item if isinstance(arg, TensorListArg) else None
    if isinstance(arg, ListArg):
        return {arg.length}
    if spec is None:
        return {arg.size} if isinstance(arg, IntArg) and arg.size else set()
    return {s for e in spec.parsed_shape for s in ((e,) if isinstance(e, str) else e.symbols)}


def _touched(intent: str) -> list[str]:
    return [intent.split(":", 1)[0]]


def _unchecked(contract: FunctionContract) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name, arg in contract.args.items():
        rules: set[str] = set(arg.unchecked)
        if isinstance(arg, TensorListArg):
            rules |= set(arg.item.unchecked)
        out[name] = rules
    return out


def _with(legal: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    args: dict[str, Any] = fresh(legal)
    args[name] = value
    return args


def _candidates(contract: FunctionContract, legal: dict[str, Any],
                sizes: Sizes) -> Iterator[tuple[dict[str, Any], str]]:
    tensor_names = [n for n, a in contract.args.items() if isinstance(a, TensorArg) and legal.get(n) is not None]
    for name, arg in contract.args.items():
        value = legal.get(name)
        if isinstance(arg, TensorArg) and isinstance(value, torch.Tensor):
            yield from _tensor_candidates(contract, legal, name, arg, value, tensor_names, sizes)
        elif isinstance(arg, TensorListArg) and isinstance(value, list):
            yield from _list_candidates(legal, name, arg, value)
        elif isinstance(arg, StrArg) and isinstance(value, str):
            yield from _str_candidates(legal, name, arg, value)
        elif isinstance(arg, ListArg) and isinstance(value, list | tuple):
            yield from _plain_list_candidates(legal, name, arg, list(value), sizes)
        elif isinstance(arg, FloatArg | IntArg | BoolArg | TupleArg):
            yield from _scalar_candidates(legal, name, arg, value, sizes)
        if not arg.optional:
            yield _with(legal, name, None), f"{name}:kind"


def _tensor_candidates(contract: FunctionContract, legal: dict[str, Any], name: str, arg: TensorArg,
                       value: torch.Tensor, tensor_names: list[str],
                       sizes: Sizes) -> Iterator[tuple[dict[str, Any], str]]:
    yield _with(legal, name, value.tolist()), f"{name}:kind"
    yield _with(legal, name, True), f"{name}:kind"
    group = [n for n in tensor_names if isinstance(contract.args[n], TensorArg)
             and contract.args[n].group == arg.group]  # type: ignore[union-attr]
    for dtype_name in OTHER_DTYPES:
        if dtype_name in arg.dtypes:
            if len(group) > 1 and dtype_name != str(value.dtype).removeprefix("torch."):
                yield _with(legal, name, _cast(value, DTYPES[dtype_name])), f"{name}:dtype mixed"
            continue
        args = fresh(legal)
        for member in group:
            args[member] = _cast(legal[member], DTYPES[dtype_name])
        yield args, f"{name}:dtype"
    if value.dim() >= 1:
        yield _with(legal, name, value[..., 0].clone()), f"{name}:rank"
    yield _with(legal, name, value.unsqueeze(-1).clone()), f"{name}:rank"
    for dim in range(value.dim()):  # one size changed: it no longer agrees with the other arguments
        grown = torch.cat([value, value.narrow(dim, 0, 1) if value.shape[dim] else _one_slice(value, dim)], dim)
        yield _with(legal, name, grown), f"{name}:size"
        if value.shape[dim] >= 1:
            yield _with(legal, name, value.narrow(dim, 0, value.shape[dim] - 1).clone()), f"{name}:size"
    if value.dtype.is_floating_point and value.numel() and arg.must_be_finite:
        for bad in (math.nan, math.inf, -math.inf):
            spoiled = value.detach().clone()
            spoiled.view(-1)[value.numel() // 2] = bad
            yield _with(legal, name, spoiled), f"{name}:finite {bad}"
    interval = arg.interval
    if interval is not None and value.numel() and value.dtype != torch.bool:
        for bound, direction in ((interval.low, -1), (interval.high, 1)):
            number = bound.number(sizes.dims)
            if math.isinf(number):
                continue
            outside = number if not bound.closed else number + direction * (1 if not value.dtype.is_floating_point
                                                                             else max(abs(number) * 1e-3, 1e-3))
            spoiled = value.detach().clone()
            spoiled.view(-1)[0] = outside
            yield _with(legal, name, spoiled), f"{name}:range {'below' if direction < 0 else 'above'}"
    if len(tensor_names) > 1 and name == tensor_names[-1]:
        # the last tensor on another device: validation that checks each tensor's own values before comparing
        # devices still reaches the comparison (nothing can be read from a meta tensor's values)
        yield _with(legal, name, value.detach().to("meta")), f"{name}:device"


def _one_slice(value: torch.Tensor, dim: int) -> torch.Tensor:
    shape = list(value.shape)
    shape[dim] = 1
    return torch.zeros(shape, dtype=value.dtype)


def _cast(value: Any, dtype: torch.dtype) -> Any:
    if isinstance(value, torch.Tensor):
        if dtype == torch.bool:
            return value.detach() > 0
        return value.detach().to(dtype)
    if isinstance(value, list):
        return [_cast(item, dtype) for item in value]
    return value


def _list_candidates(legal: dict[str, Any], name: str, arg: TensorListArg,
                     value: list[Any]) -> Iterator[tuple[dict[str, Any], str]]:
    present = [i for i, item in enumerate(value) if isinstance(item, torch.Tensor)]
    yield _with(legal, name, tuple(fresh(value))), f"{name}:kind"
    if present:
        first = present[0]
        items = fresh(value)
        items[first] = items[first].tolist()
        yield _with(legal, name, items), f"{name}:kind"
        for dtype_name in OTHER_DTYPES:
            if dtype_name not in arg.item.dtypes:
                yield _with(legal, name, [_cast(item, DTYPES[dtype_name]) for item in fresh(value)]), f"{name}:dtype"
                break
        if value[first].dtype.is_floating_point and value[first].numel() and arg.item.must_be_finite:
            items = fresh(value)
            items[first].view(-1)[0] = math.nan
            yield _with(legal, name, items), f"{name}:finite"
    if not arg.none_items and value:
        items = fresh(value)
        items[0] = None
        yield _with(legal, name, items), f"{name}:kind"


def _str_candidates(legal: dict[str, Any], name: str, arg: StrArg,
                    value: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Bytes, a list of its characters, a number; a lone surrogate; one character too few or too many."""
    yield _with(legal, name, value.encode("utf-8", errors="replace")), f"{name}:kind"
    yield _with(legal, name, list(value)), f"{name}:kind"
    yield _with(legal, name, 1), f"{name}:kind"
    if arg.utf8:
        yield _with(legal, name, value + "\ud800"), f"{name}:range"
    filler = (arg.alphabet or "a")[0]
    if arg.min_length > 0:
        yield _with(legal, name, value[: arg.min_length - 1]), f"{name}:shape"
    if arg.max_length is not None:
        yield _with(legal, name, (value + filler * (arg.max_length + 1))[: arg.max_length + 1]), f"{name}:shape"


def _plain_list_candidates(legal: dict[str, Any], name: str, arg: ListArg, value: list[Any],
                           sizes: Sizes) -> Iterator[tuple[dict[str, Any], str]]:
    """Not a list (a str, a tuple where tuples are not declared, a dict); then its first item broken in each way
    an item alone can be (None, the wrong kind, a tuple of the wrong length, a number outside its range)."""
    yield _with(legal, name, str(value)), f"{name}:kind"
    yield _with(legal, name, dict(enumerate(value))), f"{name}:kind"
    if not arg.tuples:
        yield _with(legal, name, tuple(value)), f"{name}:kind"
    if not value:
        return
    bad_items: list[Any] = [None]
    if isinstance(arg.item, TupleArg):
        bad_items.append(value[0][0] if isinstance(value[0], tuple | list) and value[0] else 0)  # a bare number
    for args, _ in _scalar_candidates({name: value[0]}, name, arg.item, value[0], sizes):
        bad_items.append(args[name])
    for bad in bad_items:
        items = fresh(value)
        items[0] = bad
        yield _with(legal, name, items), f"{name}:item"


def _scalar_candidates(legal: dict[str, Any], name: str, arg: FloatArg | IntArg | BoolArg | TupleArg, value: Any,
                       sizes: Sizes) -> Iterator[tuple[dict[str, Any], str]]:
    if isinstance(arg, BoolArg):
        yield _with(legal, name, 1), f"{name}:kind"
        yield _with(legal, name, "yes"), f"{name}:kind"
        return
    if isinstance(arg, TupleArg):
        yield _with(legal, name, "0.5"), f"{name}:kind"
        if isinstance(value, tuple):
            yield _with(legal, name, list(value)), f"{name}:kind"
            yield _with(legal, name, (*value, value[-1])), f"{name}:length"
            for index, item_spec in enumerate(arg.items):
                for bad in _scalar_bad_values(item_spec, value[index], sizes):
                    items = list(value)
                    items[index] = bad
                    yield _with(legal, name, tuple(items)), f"{name}:item"
        return
    for bad in _scalar_bad_values(arg, value, sizes):
        yield _with(legal, name, bad), f"{name}:value"


def _scalar_bad_values(arg: FloatArg | IntArg | BoolArg, value: Any, sizes: Sizes) -> list[Any]:
    if isinstance(arg, BoolArg):
        return [1]
    bad: list[Any] = [True, str(value), torch.tensor(value if value is not None else 1)]
    if isinstance(arg, IntArg):
        bad.append(float(value) if isinstance(value, int) else 1.0)
        interval = arg.interval
        if arg.size is not None:
            bad += [value + 1, -1] if isinstance(value, int) else [-1]  # disagreeing with the shapes; no size at all
    else:
        if not arg.integers:
            bad.append(int(value) if isinstance(value, float) and math.isfinite(value) else 1)
        bad += [math.nan, math.inf, -math.inf]
        interval = arg.interval
    if interval is not None:
        for bound, direction in ((interval.low, -1), (interval.high, 1)):
            number = bound.number(sizes.dims)
            if math.isinf(number):
                continue
            if isinstance(arg, IntArg):
                bad.append(int(number) if not bound.closed else int(number) + direction)
            else:
                bad.append(float(number) if not bound.closed else float(number) + direction * max(abs(number) * 1e-3,
                                                                                                 1e-3))
    return bad
