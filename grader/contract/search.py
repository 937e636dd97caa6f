"""The property search: random legal inputs drawn from every function's declared contract with Hypothesis, each
compared with the reference, and a failure shrunk to the smallest input that shows it.

Two runs agree: Hypothesis draws from a fixed seed (derived from the problem and the function), with no example
database and a bounded number of examples, and a function's answers decide everything else. The examples are
drawn first and sent to the sandbox in one round trip; only a failure costs more calls, while Hypothesis shrinks
it (at most SHRINK_CALLS of them), and the message prints the smallest failing input in full.

Hypothesis keeps per-thread state while it runs, and the judge runs a submission's checks side by side on one
thread, so all searches of a problem live in this one check and run one after the other.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from random import Random
from types import ModuleType
from typing import Any

import torch

from grader.calls import CheckFailed, WorkerLost
from grader.checks import Check, fail
from grader.contract.battery import FunctionBattery, stable_seed
from grader.contract.clauses import SEARCH_CLAUSE
from grader.contract.draw import LAYOUTS, UNICODE_SAMPLE, fresh, in_layout, int_bounds, local_symbols
from grader.contract.expect import Case
from grader.contract.legality import violations
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
from grader.contract.sizes import Sizes, dependency_order, fits, runs, satisfied

SHRINK_CALLS = 60  # learner calls a failing search may spend making its input smaller
MAX_SIZE_ABOVE_MIN = 3  # sizes drawn in [min, min + 3]: small inputs, readable when printed
ELEMENT_SPAN = 4.0  # unbounded float elements are drawn from [-4, 4]
SCALAR_HALF_LINE = (0.05, 8.0)  # a positive scalar (a temperature) drawn from this span


@dataclass
class Example:
    """One drawn input: its sizes and arguments (as the learner gets them)."""

    sizes: Sizes
    args: dict[str, Any]
    key: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        self.key = _digest(self.args)


def _digest(value: Any) -> str:
    digest = hashlib.blake2b(digest_size=16)

    def feed(item: Any) -> None:
        if isinstance(item, torch.Tensor):
            digest.update(f"T{item.dtype}{tuple(item.shape)}{item.stride()}{item.requires_grad}".encode())
            if item.device.type != "meta":
                flat = item.detach().clone(memory_format=torch.contiguous_format).reshape(-1)
                digest.update(flat.view(torch.uint8).numpy().tobytes() if item.numel() else b"")
        elif isinstance(item, dict):
            for key, inner in item.items():
                digest.update(str(key).encode())
                feed(inner)
        elif isinstance(item, list | tuple):
            digest.update(b"L" if isinstance(item, list) else b"U")
            for inner in item:
                feed(inner)
        else:
            digest.update(repr((type(item).__name__, item)).encode())

    feed(value)
    return digest.hexdigest()


def strategy(battery: FunctionBattery) -> Any:
    """Hypothesis's strategy for one legal call of the battery's function."""
    from hypothesis import assume
    from hypothesis import strategies as st

    contract = battery.contract

    @st.composite
    def draw_example(draw: Callable[[Any], Any]) -> Example:
        dims: dict[str, int] = {}
        for name in dependency_order(contract):
            dims[name] = draw(_size(st, name, contract, dims))
        run_dims: dict[str, tuple[int, ...]] = {}
        for name in runs(contract):
            spec = contract.dims[name]
            rank = draw(st.sampled_from([r for r in spec.drawn_ranks() if r <= 2] or spec.drawn_ranks()[:1]))
            low = max(spec.min, 1)
            run_dims[name] = tuple(draw(st.integers(low, low + 2)) for _ in range(rank))
        sizes = Sizes(dims, run_dims, "search")
        assume(satisfied(contract, sizes))
        dtypes = {}
        for group, allowed in _groups(contract).items():
            ordered = sorted(allowed, key="float64".__ne__)  # shrinks towards float64
            dtypes[group] = DTYPES[draw(st.sampled_from(ordered))]
        args: dict[str, Any] = {}
        for name, arg in contract.args.items():
            if arg.optional and draw(st.booleans()):
                args[name] = None
                continue
            if isinstance(arg, TensorArg):
                args[name] = draw(_tensor(st, arg, sizes.shape(arg.parsed_shape), dtypes[arg.group], dims))
            elif isinstance(arg, TensorListArg):
                args[name] = draw(_tensor_list(st, contract, arg, sizes, dtypes[arg.item.group]))
            elif isinstance(arg, StrArg):
                args[name] = draw(_text(st, arg))
            elif isinstance(arg, ListArg):
                length = dims[arg.length]
                args[name] = draw(st.lists(_scalar(st, arg.item, dims), min_size=length, max_size=length))
            else:
                args[name] = draw(_scalar(st, arg, dims))
        if battery.legal is not None:
            args = battery.legal(args, dict(dims))
        for name, arg in contract.args.items():
            tensor = arg if isinstance(arg, TensorArg) else None
            if tensor is not None and args.get(name) is not None:
                if tensor.views:
                    layout = draw(st.sampled_from(("contiguous", *LAYOUTS)))
                    moved = in_layout(args[name], layout) if layout != "contiguous" else None
                    if moved is not None and layout != "expanded":
                        args[name] = moved
                if tensor.grad_rule != "none" and draw(st.booleans()):
                    args[name] = args[name].detach().requires_grad_(True)
        assume(not violations(contract, args))
        return Example(sizes, args)

    return draw_example()


def _groups(contract: FunctionContract) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for arg in contract.args.values():
        spec = arg if isinstance(arg, TensorArg) else arg.item if isinstance(arg, TensorListArg) else None
        if spec is not None:
            allowed = groups.setdefault(spec.group, list(spec.dtypes))
            groups[spec.group] = [d for d in allowed if d in spec.dtypes] or allowed
    return groups


def _size(st: Any, name: str, contract: FunctionContract, dims: dict[str, int]) -> Any:
    spec = contract.dims[name]
    high = spec.min + MAX_SIZE_ABOVE_MIN if spec.max is None else min(spec.max, spec.min + MAX_SIZE_ABOVE_MIN)
    if spec.multiple_of is not None:
        unit = spec.multiple_of if isinstance(spec.multiple_of, int) else dims.get(spec.multiple_of, 1)
        unit = max(unit, 1)
        first = max(1, math.ceil(spec.min / unit))
        return st.sampled_from([k * unit for k in range(first, first + 3)])
    if spec.even:
        first = math.ceil(spec.min / 2)
        return st.sampled_from([2 * k for k in range(first, first + 3)])
    allowed = [size for size in range(spec.min, max(spec.min, high) + 1) if fits(name, size, spec, dims)]
    return st.sampled_from(allowed or [spec.min])


def _float_bounds(interval: Interval | None, dims: dict[str, int]) -> tuple[float, float, bool, bool]:
    if interval is None:
        return -ELEMENT_SPAN, ELEMENT_SPAN, False, False
    low, high = interval.low.number(dims), interval.high.number(dims)
    if math.isinf(low) and math.isinf(high):
        return -ELEMENT_SPAN, ELEMENT_SPAN, False, False
    if math.isinf(high):
        return low, low + 2 * ELEMENT_SPAN, not interval.low.closed, False
    if math.isinf(low):
        return high - 2 * ELEMENT_SPAN, high, False, not interval.high.closed
    return low, high, not interval.low.closed, not interval.high.closed


def _tensor(st: Any, arg: TensorArg, shape: tuple[int, ...], dtype: torch.dtype, dims: dict[str, int]) -> Any:
    count = math.prod(shape)
    if dtype == torch.bool:
        elements = st.lists(st.booleans(), min_size=count, max_size=count)
    elif not dtype.is_floating_point:
        assert arg.interval is not None
        first, last = int_bounds(arg.interval, dims)
        elements = st.lists(st.integers(first, max(first, last)), min_size=count, max_size=count)
    else:
        low, high, open_low, open_high = _float_bounds(arg.interval, dims)
        if open_low:
            low = low + max(abs(low) * 1e-3, 1e-3)
        if open_high:
            high = high - max(abs(high) * 1e-3, 1e-3)
        elements = st.lists(st.floats(low, high, allow_nan=False, allow_infinity=False),
                            min_size=count, max_size=count)
    return elements.map(functools.partial(_as_tensor, shape=shape, dtype=dtype))


def _as_tensor(values: list[Any], *, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """Drawn elements as a tensor (a named function: Hypothesis describes a lambda by reading its source)."""
    wide = torch.float64 if dtype.is_floating_point else dtype
    return torch.tensor(values, dtype=wide).reshape(shape).to(dtype)


def _tensor_list(st: Any, contract: FunctionContract, arg: TensorListArg, sizes: Sizes, dtype: torch.dtype) -> Any:
    local = sorted(local_symbols(contract, arg))

    @st.composite  # type: ignore[untyped-decorator]  # mypy counts composite's result as untyped
    def items(draw: Callable[[Any], Any]) -> list[torch.Tensor | None]:
        out: list[torch.Tensor | None] = []
        for _ in range(sizes.dims[arg.length]):
            if arg.none_items and draw(st.booleans()):
                out.append(None)
                continue
            dims = dict(sizes.dims)
            run_dims = dict(sizes.runs)
            for name in local:
                spec = contract.dims[name]
                if name.startswith("*"):
                    rank = draw(st.sampled_from([r for r in spec.drawn_ranks() if r <= 2] or spec.drawn_ranks()[:1]))
                    run_dims[name] = tuple(draw(st.integers(max(spec.min, 1), max(spec.min, 1) + 2))
                                           for _ in range(rank))
                else:
                    dims[name] = draw(_size(st, name, contract, dims))
            shape = Sizes(dims, run_dims).shape(arg.item.parsed_shape)
            out.append(draw(_tensor(st, arg.item, shape, dtype, dims)))
        return out

    return items()


def _text(st: Any, arg: StrArg) -> Any:
    """Text of the argument's alphabet, or any text UTF-8 can encode (no lone surrogates) when it has none; from
    its shortest legal length to STR_DRAWN_ABOVE_MIN characters more (shrinking towards the shortest)."""
    if arg.alphabet is not None:
        characters = st.sampled_from(arg.alphabet)
    else:  # characters that repeat (so that pairs recur) mixed with any at all
        characters = st.one_of(st.sampled_from(UNICODE_SAMPLE), st.characters(codec="utf-8"))
    return st.text(characters, min_size=arg.min_length, max_size=arg.longest_drawn)


def _scalar(st: Any, arg: FloatArg | IntArg | BoolArg | TupleArg, dims: dict[str, int]) -> Any:
    if isinstance(arg, BoolArg):
        return st.booleans()
    if isinstance(arg, TupleArg):
        return st.tuples(*(_scalar(st, item, dims) for item in arg.items))
    if isinstance(arg, IntArg):
        if arg.size is not None:
            return st.just(dims[arg.size])
        assert arg.interval is not None
        first, last = int_bounds(arg.interval, dims)
        return st.integers(first, max(first, last))
    floats = _float_scalar(st, arg, dims)
    if not arg.integers:
        return floats
    first, last = int_bounds(arg.interval, dims)  # a Python int is a legal number too: the answer stays a float
    whole = [v for v in range(first, last + 1) if arg.interval.contains(v, dims)]
    return st.one_of(floats, st.sampled_from(whole)) if whole else floats


def _float_scalar(st: Any, arg: FloatArg, dims: dict[str, int]) -> Any:
    interval = arg.interval
    low, high = interval.low.number(dims), interval.high.number(dims)
    if math.isinf(low) and math.isinf(high):
        return st.floats(-ELEMENT_SPAN, ELEMENT_SPAN, allow_nan=False, allow_infinity=False)
    if math.isinf(high):
        small, large = SCALAR_HALF_LINE
        return st.floats(max(low, 0.0) + small if low >= 0 else low, low + large, allow_nan=False,
                         allow_infinity=False, exclude_min=not interval.low.closed)
    if math.isinf(low):
        return st.floats(high - SCALAR_HALF_LINE[1], high, exclude_max=not interval.high.closed)
    return st.floats(low, high, exclude_min=not interval.low.closed, exclude_max=not interval.high.closed)


def describe_input(args: dict[str, Any]) -> str:
    """Every argument in full: small enough to paste into a scratch run."""
    parts = []
    for name, value in args.items():
        parts.append(f"{name}={_full(value)}")
    return ", ".join(parts)


def _full(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        extra = [f"dtype=torch.{str(value.dtype).removeprefix('torch.')}"]
        if value.requires_grad:
            extra.append("requires_grad=True")
        layout = "" if value.is_contiguous() or value.dim() < 2 else f"  # strides {value.stride()}"
        values = value.detach()
        text = repr(values.tolist()) if values.numel() <= 64 else f"<{values.numel()} values>"
        return f"torch.tensor({text}, {', '.join(extra)}){layout}"
    if isinstance(value, list):
        return "[" + ", ".join(_full(item) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_full(item) for item in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


class _Lost(Exception):
    """The learner's code broke a limit during the search: no more calls."""


def search_function(battery: FunctionBattery, sub: Any, ref: ModuleType) -> None:
    """Draw, compare, and on a failure shrink; fail with the smallest failing input."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    contract = battery.contract
    if contract.search_examples == 0:
        return
    config = _settings(contract)
    seed = stable_seed(battery.slug, battery.name, "search")
    examples, cases = drawn_examples(battery)
    if not examples:
        return
    outcome: dict[str, Failure | None] = {}  # key -> how the call failed (None: the call was right)
    results = battery.run_cases(sub, ref, cases)
    for example, case, result in zip(examples, cases, results, strict=True):
        outcome[example.key] = _failure(battery, ref, result, case)
    drawn_failures = [failure for failure in outcome.values() if failure is not None]
    if not drawn_failures:
        return
    kind = _commonest_kind(drawn_failures)
    spent = [0]
    lost: list[BaseException] = []

    def fails(example: Example) -> bool:
        if example.key not in outcome:
            if lost or spent[0] >= SHRINK_CALLS:
                return False
            spent[0] += 1
            case = _case(example)
            try:
                result = battery.run_cases(sub, ref, [case])[0]
            except (WorkerLost, CheckFailed) as exc:
                lost.append(exc)
                return False
            except BaseException as exc:  # noqa: B902 - a Stop (GradingStopped) must end the search too
                lost.append(exc)
                return False
            outcome[example.key] = _failure(battery, ref, result, case)
        failure = outcome[example.key]
        return failure is not None and failure.kind == kind

    try:
        smallest = find(strategy(battery), fails, settings=config, random=Random(seed))
    except NoSuchExample:
        smallest = next(e for e in examples if fails(e))
    if lost:
        raise lost[0]
    failure = outcome[smallest.key]
    assert failure is not None  # find() and the fallback return only failing examples
    message = failure.message
    tried = len(examples)
    fail(f"{battery.name}: the property search tried {tried} random legal inputs; on the smallest failing one it "
         f"found, {message}\nThat input, in full: {describe_input(smallest.args)}")


def drawn_examples(battery: FunctionBattery) -> tuple[list[Example], list[Case]]:
    """The search's first examples and their cases, drawn once per process (they depend only on the contract, the
    seed and Hypothesis's version; the reference's answers to them are then computed once too)."""
    cached = battery.cache.get("search")
    if cached is not None:
        return cached  # type: ignore[return-value]
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    examples: list[Example] = []

    def collect(example: Example) -> bool:
        examples.append(example)
        return False

    try:
        find(strategy(battery), collect, settings=_settings(battery.contract),
             random=Random(stable_seed(battery.slug, battery.name, "search")))
    except NoSuchExample:
        pass
    drawn = (examples, [_case(example) for example in examples])
    battery.cache["search"] = drawn
    return drawn


def _without_local_constants() -> None:
    """Make Hypothesis draw from its own constants only, never from the source of the modules this process has
    loaded (its "local constants", mixed into about one draw in twenty). With them, the search's inputs depend on
    which problems and tools a process imported before (a server's worker, a CLI run, a pytest worker each drew
    differently), so the same submission could pass on one grading host and fail on another. Idempotent; the
    pinned Hypothesis version is what this reaches into, and a test holds the draws to one process's history."""
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.constants_ast import Constants

    if getattr(providers._get_local_constants, "paperlab_none", False):
        return
    none = Constants()

    def no_local_constants() -> Constants:
        return none

    no_local_constants.paperlab_none = True  # type: ignore[attr-defined]
    providers._get_local_constants = no_local_constants
    providers.CONSTANTS_CACHE.cache.clear()  # permitted values computed with local constants, if any were


def _settings(contract: FunctionContract) -> Any:
    from hypothesis import HealthCheck, Phase, Verbosity, settings

    _without_local_constants()  # every search builds its settings first

    return settings(max_examples=contract.search_examples, phases=(Phase.generate, Phase.shrink), database=None,
                    deadline=None, verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck),
                    derandomize=False, report_multiple_bugs=False, print_blob=False)


def _case(example: Example) -> Case:
    return Case(example.args, "random legal input", example.sizes, reference_args=fresh(example.args))


@dataclass(frozen=True)
class Failure:
    """How one call failed: the message the learner reads, and its kind (what the call raised, a result that is
    not finite, or a wrong one). The shrinker keeps to the kind the search found most often: without it, a
    smaller input that fails for another reason wins, such as a subnormal alpha whose square root is 0 in float32,
    where even a right formula divides 0 by 0, shown for a mistake that input has nothing to do with."""

    message: str
    kind: str


def _failure(battery: FunctionBattery, ref: ModuleType, result: Any, case: Case) -> Failure | None:
    try:
        battery.expect(ref, result, case)
    except CheckFailed as exc:
        return Failure(str(exc), _kind(result))
    return None


def _kind(result: Any) -> str:
    if result.raised is not None:
        return f"raised {result.raised.type}"
    return "wrong" if _finite(result.value) else "not finite"


def _finite(value: Any, depth: int = 0) -> bool:
    """Every float in a result is finite (tensors, Python floats, and the tuples and lists that hold them)."""
    if isinstance(value, torch.Tensor):
        return not value.dtype.is_floating_point or bool(torch.isfinite(value.detach()).all())
    if isinstance(value, tuple | list) and depth < 8:
        return all(_finite(item, depth + 1) for item in value)
    return type(value) is not float or math.isfinite(value)


def _commonest_kind(failures: list[Failure]) -> str:
    """The kind most of the drawn inputs fail with (the first of those tied): the mistake the search found."""
    return Counter(failure.kind for failure in failures).most_common(1)[0][0]


def search_check(batteries: list[FunctionBattery]) -> Check:
    def run(sub: Any, ref: ModuleType) -> None:
        for battery in batteries:
            search_function(battery, sub, ref)

    return Check(id=SEARCH_CLAUSE, title="Property search: random legal inputs to every function, drawn from its "
                 "contract, give the reference's result", group="contract", required=True, function=run,
                 wants_context=False, clauses=(SEARCH_CLAUSE,),
                 preparations=tuple(functools.partial(drawn_examples, battery) for battery in batteries))
