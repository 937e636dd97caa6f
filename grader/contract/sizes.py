"""Sizes for a contract's symbols: the assignments the generic battery tries, and binding a call's actual shapes
back to symbols (to tell a legal call from an illegal one).

An assignment gives every symbol a size and every variadic run (`*B`) its dimensions. The battery starts from one
where every symbol has a size of its own (so a formula that mixes up two axes of different sizes fails), then
makes each pair of symbols equal (so a formula that only works when two sizes differ fails too, e.g. channel
statistics broadcast onto the width when W = C), then the smallest sizes (1, and 0 where a dimension may be
empty), then each variadic run at every rank it allows, and with a dimension of 0 where it may be empty.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from grader.contract.schema import (
    DimSpec,
    FunctionContract,
    IntArg,
    SizeExpression,
    TensorArg,
    TensorListArg,
    TensorResult,
)
from grader.errors import GraderError

# Distinct sizes handed out in this order: small (inputs stay cheap), and no two alike.
DISTINCT_SIZES = (3, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
ShapeSpec = tuple[str | SizeExpression, ...]
SOLVE_LIMIT = 4096  # the largest value solve_expressions tries for a symbol


@dataclass(frozen=True)
class Sizes:
    """One assignment: symbol -> size, variadic run -> its dimensions."""

    dims: dict[str, int] = field(default_factory=dict)
    runs: dict[str, tuple[int, ...]] = field(default_factory=dict)
    label: str = "distinct sizes"

    def shape(self, spec: ShapeSpec) -> tuple[int, ...]:
        out: list[int] = []
        for entry in spec:
            if isinstance(entry, str):
                out.extend(self.runs[entry])
            else:
                out.append(entry.value(self.dims))
        return tuple(out)

    def with_dims(self, label: str, **changes: int) -> Sizes:
        return Sizes({**self.dims, **changes}, dict(self.runs), label)

    def with_run(self, label: str, name: str, dims: tuple[int, ...]) -> Sizes:
        return Sizes(dict(self.dims), {**self.runs, name: dims}, label)

    def describe(self) -> str:
        parts = [f"{name}={size}" for name, size in self.dims.items()]
        parts += [f"{name}={list(dims)}" for name, dims in self.runs.items()]
        return ", ".join(parts)


def symbols(contract: FunctionContract) -> list[str]:
    return [name for name in contract.dims if not name.startswith("*")]


def runs(contract: FunctionContract) -> list[str]:
    return [name for name in contract.dims if name.startswith("*")]


def fits(name: str, size: int, spec: DimSpec, dims: dict[str, int], *, drawing: bool = True) -> bool:
    """Whether `size` is legal for symbol `name` given the other sizes (`drawing`: what the battery may draw; a
    non-strict minimum bounds only that)."""
    if (size < spec.min and (drawing or spec.strict)) or (spec.max is not None and size > spec.max):
        return False
    if spec.even and size % 2:
        return False
    if spec.multiple_of is not None:
        unit = spec.multiple_of if isinstance(spec.multiple_of, int) else dims.get(spec.multiple_of)
        if unit is None or unit <= 0 or size % unit:
            return False
    return True


def satisfied(contract: FunctionContract, sizes: Sizes) -> bool:
    """Every symbol's constraints hold, every expression in a shape is non-negative."""
    for name in symbols(contract):
        if name not in sizes.dims or not fits(name, sizes.dims[name], contract.dims[name], sizes.dims):
            return False
    for name in runs(contract):
        spec = contract.dims[name]
        dims = sizes.runs.get(name, ())
        if not spec.rank_allowed(len(dims)) or any(not fits(name, d, spec, sizes.dims) for d in dims):
            return False
    for shape in _all_shapes(contract):
        if any(size < 0 for size in sizes.shape(shape)):
            return False
    return True


def _all_shapes(contract: FunctionContract) -> Iterator[ShapeSpec]:
    for arg in contract.args.values():
        if isinstance(arg, TensorArg):
            yield arg.parsed_shape
        elif isinstance(arg, TensorListArg):
            yield arg.item.parsed_shape
    for result in _tensor_results(contract.result):
        yield result.parsed_shape


def _tensor_results(result: object) -> Iterator[TensorResult]:
    from grader.contract.schema import TupleResult

    if isinstance(result, TensorResult):
        yield result
    elif isinstance(result, TupleResult):
        for item in result.items:
            yield from _tensor_results(item)


def dependency_order(contract: FunctionContract) -> list[str]:
    """Symbols with the ones another is a multiple of first."""
    names = symbols(contract)
    ordered: list[str] = []
    while len(ordered) < len(names):
        progressed = False
        for name in names:
            unit = contract.dims[name].multiple_of
            if name not in ordered and (not isinstance(unit, str) or unit in ordered):
                ordered.append(name)
                progressed = True
        if not progressed:  # a cycle of multiple_of: keep declaration order, `satisfied` will refuse
            ordered += [n for n in names if n not in ordered]
    return ordered


def _pick(name: str, spec: DimSpec, dims: dict[str, int], taken: set[int]) -> int:
    """The first size of DISTINCT_SIZES this symbol allows and nobody has; else the smallest size it allows."""
    candidates = [size for size in DISTINCT_SIZES if size not in taken]
    unit = spec.multiple_of if isinstance(spec.multiple_of, int) else dims.get(str(spec.multiple_of), 1)
    if spec.multiple_of is not None:
        candidates = [unit * k for k in (2, 1, 3, 4)] + candidates
    for size in candidates:
        if size not in taken and fits(name, size, spec, dims):
            return size
    for size in range(spec.min, spec.min + 64):
        if fits(name, size, spec, dims):
            return size
    return spec.min


def distinct(contract: FunctionContract) -> Sizes:
    """Every symbol a size of its own; every variadic run one dimension (or its minimum rank), also distinct."""
    dims: dict[str, int] = {}
    taken: set[int] = set()
    for name in dependency_order(contract):
        dims[name] = _pick(name, contract.dims[name], dims, taken)
        taken.add(dims[name])
    run_dims: dict[str, tuple[int, ...]] = {}
    for name in runs(contract):
        spec = contract.dims[name]
        ranks = spec.drawn_ranks()
        rank = next((r for r in ranks if r >= 1), ranks[-1])
        chosen = []
        for _ in range(rank):
            size = _pick(name, spec, dims, taken)
            taken.add(size)
            chosen.append(size)
        run_dims[name] = tuple(chosen)
    return Sizes(dims, run_dims)


def variations(contract: FunctionContract) -> list[Sizes]:
    """The distinct assignment, then each pair of symbols made equal (where both allow it)."""
    base = distinct(contract)
    found = [base]
    for a, b in itertools.combinations(symbols(contract), 2):
        changed = base.with_dims(f"{a} = {b}", **{b: base.dims[a]})
        if changed.dims[a] != base.dims[b] and satisfied(contract, changed):
            found.append(changed)
        else:
            other = base.with_dims(f"{a} = {b}", **{a: base.dims[b]})
            if satisfied(contract, other):
                found.append(other)
    for run in runs(contract):  # a run's dimensions the size of a symbol: [N, C, H, W] with W = H = C
        for name in symbols(contract):
            dims = tuple(base.dims[name] for _ in base.runs[run])
            changed = base.with_run(f"{run} of size {name}", run, dims)
            if dims and dims != base.runs[run] and satisfied(contract, changed):
                found.append(changed)
    return _unique(found)


def edges(contract: FunctionContract) -> list[Sizes]:
    """The smallest sizes: every symbol at 1 at once, each at 1 alone, each that may be empty at 0, each
    variadic run at every rank it allows, with its dimensions at 1, and, where it may be empty, with a first
    dimension of 0."""
    base = distinct(contract)
    found: list[Sizes] = []
    ones = base.with_dims("every size 1", **{name: 1 for name in symbols(contract)})
    ones = Sizes(ones.dims, {name: (1,) * len(dims) for name, dims in base.runs.items()}, ones.label)
    if satisfied(contract, ones):
        found.append(ones)
    for name in symbols(contract):
        for size in (1, 0):
            if size < contract.dims[name].min:
                continue
            changed = base.with_dims(f"{name} = {size}", **{name: size})
            if satisfied(contract, changed):
                found.append(changed)
    for name in runs(contract):
        spec = contract.dims[name]
        for rank in spec.drawn_ranks():
            if rank == len(base.runs[name]):
                continue
            dims = tuple(DISTINCT_SIZES[-1 - i] for i in range(rank))  # sizes no symbol uses
            changed = base.with_run(f"{name} of rank {rank}", name, dims)
            if satisfied(contract, changed):
                found.append(changed)
        # A run whose dimensions may be empty (an empty batch) at its smallest rank that has a dimension: its first
        # dimension 0. Code that special-cases an empty input (returns an argument, a fresh tensor off the graph)
        # meets the contract here or nowhere in the battery.
        ranks = [rank for rank in spec.drawn_ranks() if rank >= 1]
        # Its dimensions at 1, every symbol still distinct (a batch of one): where x.squeeze() drops the batch,
        # and a path taken for a single row may lose the gradient, while every size at 1 at once hides both.
        if ranks and spec.min <= 1:
            single = base.with_run(f"{name} = {[1] * ranks[0]}", name, (1,) * ranks[0])
            if satisfied(contract, single):
                found.append(single)
        if spec.min == 0 and ranks:
            dims = (0, *(DISTINCT_SIZES[-1 - i] for i in range(ranks[0] - 1)))
            empty = base.with_run(f"{name} = {list(dims)}", name, dims)
            if satisfied(contract, empty):
                found.append(empty)
    return _unique(found)


def _unique(assignments: list[Sizes]) -> list[Sizes]:
    seen: set[tuple[tuple[tuple[str, int], ...], tuple[tuple[str, tuple[int, ...]], ...]]] = set()
    out = []
    for sizes in assignments:
        key = (tuple(sorted(sizes.dims.items())), tuple(sorted(sizes.runs.items())))
        if key not in seen:
            seen.add(key)
            out.append(sizes)
    return out


# ------------------------------------------------------------------------------------------------- binding


class Unbound(GraderError):
    """A call's shapes do not fit the contract: ranks, sizes that disagree, or a size a symbol does not allow."""


def bind_shape(spec: ShapeSpec, shape: tuple[int, ...], dims: dict[str, int],
               run_dims: dict[str, tuple[int, ...]], contract: FunctionContract, what: str,
               *, local: frozenset[str] = frozenset()) -> None:
    """Bind the bare symbols and the variadic run of `spec` to `shape`, refusing a disagreement with what is
    already bound. Symbols in `local` are bound afresh (a list element's own sizes)."""
    fixed = [entry for entry in spec if not isinstance(entry, str)]
    variadic = [entry for entry in spec if isinstance(entry, str)]
    if variadic:
        run_rank = len(shape) - len(fixed)
        spec_of_run = contract.dims[variadic[0]]
        if run_rank < 0 or not spec_of_run.rank_allowed(run_rank):
            allowed = (", ".join(str(len(fixed) + r) for r in spec_of_run.ranks) if spec_of_run.ranks is not None
                       else f"at least {len(fixed) + spec_of_run.min_rank}")
            raise Unbound(f"{what} has {len(shape)} dimensions, {allowed} expected")
    elif len(shape) != len(spec):
        raise Unbound(f"{what} has {len(shape)} dimensions, {len(spec)} expected")
    position = 0
    for entry in spec:
        if isinstance(entry, str):
            rank = len(shape) - len(fixed)
            got = tuple(shape[position:position + rank])
            if entry in run_dims and entry not in local and run_dims[entry] != got:
                raise Unbound(f"{what}'s leading dimensions {list(got)} differ from {list(run_dims[entry])}")
            run_dims[entry] = got
            position += rank
            continue
        name = entry.symbol
        if name is not None:
            if name in dims and name not in local and dims[name] != shape[position]:
                raise Unbound(f"{what}: {name} is {shape[position]} here but {dims[name]} elsewhere")
            dims[name] = shape[position]
        position += 1


def check_expressions(spec: ShapeSpec, shape: tuple[int, ...], dims: dict[str, int],
                      run_dims: dict[str, tuple[int, ...]], what: str) -> None:
    """After every bare symbol is bound: expressions (2*N, T+1) must equal their dimension."""
    sizes = Sizes(dims, run_dims)
    try:
        expected = sizes.shape(spec)
    except KeyError:
        return  # an expression over a symbol nothing binds: nothing to compare
    if tuple(expected) != tuple(shape):
        raise Unbound(f"{what} has shape {list(shape)}, {list(expected)} expected")


def solve_expressions(sizes: Sizes, shapes: Sequence[tuple[ShapeSpec, tuple[int, ...]]], *,
                      limit: int = SOLVE_LIMIT) -> Sizes:
    """`sizes` with each symbol that only an expression holds (W = P*Wp: Wp) solved from a dimension of `shapes`
    (declared shape, actual shape), where exactly one value of it fits; until no more can be."""
    dims = dict(sizes.dims)
    solved = True
    while solved:
        solved = False
        for spec, shape in shapes:
            for entry, size in _aligned(spec, shape, sizes.runs):
                unknown = [name for name in entry.symbols if name not in dims]
                if len(unknown) != 1:
                    continue
                value = _solve(entry, unknown[0], dims, size, limit)
                if value is not None:
                    dims[unknown[0]] = value
                    solved = True
    return Sizes(dims, dict(sizes.runs), sizes.label)


def _solve(entry: SizeExpression, symbol: str, dims: dict[str, int], size: int, limit: int) -> int | None:
    """The one value of `symbol` that makes `entry` equal `size`, or None (none, or several). A linear entry
    (P*Hp, T+1, 2*N - 1) is solved at once; any other by trying every value up to `limit`."""
    def at(value: int) -> int | None:
        try:
            return entry.value({**dims, symbol: value})
        except ZeroDivisionError:
            return None

    probes = (0, 1, 2, 3, 7)
    values = [at(value) for value in probes]
    if values[0] is not None and values[1] is not None:
        base, step = values[0], values[1] - values[0]
        if all(value == base + step * probe for value, probe in zip(values, probes, strict=True)):
            if step == 0 or (size - base) % step or (size - base) // step < 0:
                return None
            return (size - base) // step
    fitting = [value for value in range(min(size, limit) + 2) if at(value) == size]
    return fitting[0] if len(fitting) == 1 else None


def _aligned(spec: ShapeSpec, shape: tuple[int, ...],
             runs: dict[str, tuple[int, ...]]) -> list[tuple[SizeExpression, int]]:
    """The expression entries of `spec` beside the dimensions of `shape` they describe; none where the ranks
    do not agree."""
    pairs: list[tuple[SizeExpression, int]] = []
    position = 0
    for entry in spec:
        if isinstance(entry, str):
            if entry not in runs:
                return []
            position += len(runs[entry])
            continue
        if position >= len(shape):
            return []
        pairs.append((entry, shape[position]))
        position += 1
    return pairs if position == len(shape) else []


def int_sizes(contract: FunctionContract, values: dict[str, object], dims: dict[str, int]) -> None:
    """Bind symbols given by int arguments (`size = "H"`)."""
    for name, arg in contract.args.items():
        if isinstance(arg, IntArg) and arg.size is not None and type(values.get(name)) is int:
            value = values[name]
            assert isinstance(value, int)
            if arg.size in dims and dims[arg.size] != value:
                raise Unbound(f"{name} = {value} but {arg.size} is {dims[arg.size]} in the shapes")
            dims[arg.size] = value
