"""Whether a call's arguments are legal under a contract, and if not, which rules they break.

The battery builds each refusal case by breaking one rule of a legal call; this predicate confirms that the case
breaks exactly the rule it was built to break (a larger rank may be legal where a variadic run absorbs it, a
changed size may still fit), so a case is only expected to raise what its declaration says it must.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from grader.contract.draw import local_symbols
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
from grader.contract.sizes import Sizes, Unbound, bind_shape, check_expressions, fits, int_sizes


def violations(contract: FunctionContract, args: dict[str, Any]) -> dict[str, str]:
    """rule -> what breaks it, for every rule these arguments break (empty: a legal call)."""
    return _examined(contract, args)[0]


def bound_sizes(contract: FunctionContract, args: dict[str, Any]) -> Sizes | None:
    """The sizes these arguments' shapes give the contract's symbols and variadic runs (what the result's declared
    shape means for this call), whatever other rule they break (a size past the battery's bound, a value out of
    range); None where their shapes do not agree."""
    return _examined(contract, args)[1]


def _examined(contract: FunctionContract, args: dict[str, Any]) -> tuple[dict[str, str], Sizes | None]:
    """violations(), and the sizes the arguments' shapes bind (None where they do not agree)."""
    found: dict[str, str] = {}

    def broken(rule: str, why: str) -> None:
        found.setdefault(rule, why)

    group_dtypes: dict[str, torch.dtype] = {}
    devices: set[str] = set()
    tensors: list[tuple[str, TensorArg, torch.Tensor, frozenset[str]]] = []
    for name, arg in contract.args.items():
        value = args.get(name)
        if value is None:
            if not arg.optional:
                broken("kind", f"{name} is None")
            continue
        if isinstance(arg, TensorArg):
            if type(value) is not torch.Tensor:
                broken("kind", f"{name} is a {type(value).__name__}, not a tensor")
                continue
            tensors.append((name, arg, value, frozenset()))
        elif isinstance(arg, TensorListArg):
            if type(value) is not list and not (arg.tuples and type(value) is tuple):
                broken("kind", f"{name} is a {type(value).__name__}, not a list")
                continue
            local = frozenset(local_symbols(contract, arg))
            for index, item in enumerate(value):
                if item is None and arg.none_items:
                    continue
                if type(item) is not torch.Tensor:
                    broken("kind", f"{name}[{index}] is a {type(item).__name__}, not a tensor")
                    continue
                tensors.append((f"{name}[{index}]", arg.item, item, local))
        elif isinstance(arg, StrArg):
            _str(name, arg, value, broken)
        elif isinstance(arg, ListArg):
            if type(value) is not list and not (arg.tuples and type(value) is tuple):
                broken("kind", f"{name} is a {type(value).__name__}, not a list")
                continue
            for index, item in enumerate(value):
                _scalar(f"{name}[{index}]", arg.item, item, broken)
        else:
            _scalar(name, arg, value, broken)
    for what, spec, t, _ in tensors:
        devices.add(t.device.type)
        if str(t.dtype).removeprefix("torch.") not in spec.dtypes:
            broken("dtype", f"{what} is {t.dtype}, not one of {', '.join(spec.dtypes)}")
            continue
        if spec.group in group_dtypes and group_dtypes[spec.group] != t.dtype:
            broken("dtype", f"{what} is {t.dtype}, other tensors are {group_dtypes[spec.group]}")
        group_dtypes.setdefault(spec.group, t.dtype)
    if len(devices) > 1:
        broken("device", f"tensors on {', '.join(sorted(devices))}")
    dims: dict[str, int] = {}
    run_dims: dict[str, tuple[int, ...]] = {}
    # Sizes that an int argument of the wrong kind (a bool, a float, None) should have given: constraints that
    # depend on them cannot be judged, and the call breaks the kind rule alone (one refusal, one exception).
    unjudged = {arg.size for name, arg in contract.args.items()
                if isinstance(arg, IntArg) and arg.size is not None and type(args.get(name)) is not int}
    try:
        int_sizes(contract, args, dims)
        for what, spec, t, local in tensors:
            if not spec.broadcast:
                bind_shape(spec.parsed_shape, tuple(t.shape), dims, run_dims, contract, what, local=local)
        for what, spec, t, local in tensors:
            if spec.broadcast:
                _check_broadcast(spec, tuple(t.shape), dims, run_dims, what)
            elif not local:
                check_expressions(spec.parsed_shape, tuple(t.shape), dims, run_dims, what)
        for name, arg in contract.args.items():
            if isinstance(arg, TensorListArg | ListArg) and type(args.get(name)) in (list, tuple):
                length = len(args[name])
                if arg.length in dims and dims[arg.length] != length:
                    raise Unbound(f"{name} has {length} elements, {dims[arg.length]} expected")
                dims[arg.length] = length
    except Unbound as exc:
        broken("shape", str(exc))
        return found, None
    bound = Sizes(dims, run_dims)
    try:
        for symbol, size in dims.items():
            dim = contract.dims.get(symbol)
            if dim is not None and dim.multiple_of in unjudged:
                continue
            if dim is not None and not fits(symbol, size, dim, dims, drawing=False):
                raise Unbound(f"{symbol} = {size} is not a legal size")
        for run, sizes in run_dims.items():
            dim = contract.dims[run]
            if any((size < dim.min and dim.strict) or (dim.max is not None and size > dim.max) for size in sizes):
                raise Unbound(f"{run} = {list(sizes)} has a size that is not legal")
    except Unbound as exc:
        broken("shape", str(exc))
        return found, bound
    for what, spec, t, _ in tensors:
        if t.device.type == "meta":
            continue
        if spec.must_be_finite and t.dtype.is_floating_point and t.numel() and not bool(torch.isfinite(t).all()):
            broken("finite", f"{what} holds nan or infinity")
            continue
        interval = spec.interval
        if interval is not None and t.numel():
            try:
                low, high = interval.low.number(dims), interval.high.number(dims)
            except KeyError:
                continue
            values = t.double() if t.dtype != torch.bool else t.to(torch.float64)
            above = values >= low if interval.low.closed else values > low
            below = values <= high if interval.high.closed else values < high
            if not bool((above & below).all()):
                broken("range", f"{what} holds values outside {interval}")
    for name, arg in contract.args.items():
        value = args.get(name)
        try:
            if isinstance(arg, IntArg) and arg.interval is not None and type(value) is int:
                if not arg.interval.contains(value, dims):
                    broken("range", f"{name} = {value} is outside {arg.interval}")
            if isinstance(arg, FloatArg) and isinstance(value, int | float) and math.isfinite(value):
                if not arg.interval.contains(float(value), dims):
                    broken("range", f"{name} = {value} is outside {arg.interval}")
            if isinstance(arg, ListArg) and isinstance(value, list | tuple):
                for index, item in enumerate(value):
                    _item_ranges(f"{name}[{index}]", arg.item, item, dims, broken)
        except KeyError:
            continue  # a range over a size no legal argument gave: nothing to hold the value against
    return found, bound


def _check_broadcast(spec: TensorArg, shape: tuple[int, ...], dims: dict[str, int],
                     run_dims: dict[str, tuple[int, ...]], what: str) -> None:
    try:
        target = Sizes(dims, run_dims).shape(spec.parsed_shape)
    except KeyError:
        return  # its symbols are bound by no other argument: any shape broadcasts
    fits_target = len(shape) <= len(target) and all(
        size in (1, wanted) for size, wanted in zip(reversed(shape), reversed(target), strict=False))
    if not fits_target:
        raise Unbound(f"{what} of shape {list(shape)} does not broadcast to {list(target)}")


def _str(name: str, arg: StrArg, value: Any, broken: Any) -> None:
    if type(value) is not str:
        broken("kind", f"{name} is a {type(value).__name__}, not a str")
        return
    if len(value) < arg.min_length or (arg.max_length is not None and len(value) > arg.max_length):
        most = "" if arg.max_length is None else f" and at most {arg.max_length}"
        broken("shape", f"{name} has {len(value)} characters, at least {arg.min_length}{most} expected")
    if arg.utf8:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            broken("range", f"{name} holds {value[exc.start]!r} at {exc.start}, which UTF-8 cannot encode")


def _item_ranges(what: str, spec: FloatArg | IntArg | BoolArg | TupleArg, item: Any, dims: dict[str, int],
                 broken: Any) -> None:
    """A list item's numbers against their ranges, which may use the sizes bound by the call (KeyError: a size
    nothing bound)."""
    if isinstance(spec, TupleArg):
        if type(item) in (tuple, list) and len(item) == len(spec.items):
            for index, (inner, entry) in enumerate(zip(spec.items, item, strict=True)):
                _item_ranges(f"{what}[{index}]", inner, entry, dims, broken)
        return
    interval = spec.interval if isinstance(spec, FloatArg | IntArg) else None
    number = type(item) is int or (isinstance(spec, FloatArg) and type(item) is float and math.isfinite(item))
    if interval is not None and number and not interval.contains(float(item), dims):
        broken("range", f"{what} = {item} is outside {interval}")


def _scalar(name: str, arg: FloatArg | IntArg | BoolArg | TupleArg, value: Any, broken: Any) -> None:
    kind = type(value)
    if isinstance(arg, BoolArg):
        if kind is not bool:
            broken("kind", f"{name} is a {kind.__name__}, not a bool")
        return
    if isinstance(arg, IntArg):
        if kind is not int:
            broken("kind", f"{name} is a {kind.__name__}, not an int")
        return
    if isinstance(arg, TupleArg):
        if not (kind is tuple or (kind is list and arg.lists)):
            broken("kind", f"{name} is a {kind.__name__}, not a tuple")
            return
        if len(value) != len(arg.items):
            broken("shape", f"{name} has {len(value)} items, not {len(arg.items)}")
            return
        for index, (item_spec, item) in enumerate(zip(arg.items, value, strict=True)):
            _scalar(f"{name}[{index}]", item_spec, item, broken)
            if isinstance(item_spec, FloatArg) and type(item) in (int, float) and math.isfinite(item):
                if not item_spec.interval.contains(float(item), {}):
                    broken("range", f"{name}[{index}] = {item} is outside {item_spec.interval}")
        return
    accepted = (int, float) if arg.integers else (float,)
    if kind not in accepted:
        broken("kind", f"{name} is a {kind.__name__}, not a number")
        return
    if not math.isfinite(value):
        broken("finite", f"{name} = {value} is not finite")


def dtype_of(name: str) -> torch.dtype:
    return DTYPES[name]
