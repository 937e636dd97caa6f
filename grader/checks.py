"""The API problem authors write checks with.

A check is a plain function decorated with @check. It receives `sub`, whose attributes are the learner's
functions (each call runs in the sandboxed worker), `ref`, the trusted reference module, and optionally `ctx`
(to record an experiment's series). It passes by returning and fails by raising CheckFailed, which the
helpers below do with messages that say which call, what was expected and what came back.

    @check("moco_loss.hand_example", "Hand example q = k = [1, 0]")
    def hand_example(sub, ref):
        q = torch.tensor([[1.0, 0.0]])
        got = sub.moco_loss(q, q.clone(), torch.tensor([[-1.0, 0.0], [0.0, 1.0]]), 0.5)
        expect_close(got, ref.moco_loss(q, q.clone(), torch.tensor([[-1.0, 0.0], [0.0, 1.0]]), 0.5))
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NoReturn, Protocol, overload

import torch

from grader.calls import CallResult, CheckFailed, ExceptionInfo, SubmissionRaised, WorkerLost
from grader.describe import describe
from grader.vjp import vjp

__all__ = [
    "Call",
    "CallResult",
    "Check",
    "CheckFailed",
    "Context",
    "ExceptionInfo",
    "Submission",
    "SubmissionFunction",
    "SubmissionRaised",
    "WorkerLost",
    "central_differences",
    "check",
    "collect_checks",
    "describe",
    "expect",
    "expect_close",
    "expect_equal",
    "expect_grad_close",
    "expect_grad_none",
    "expect_no_alias",
    "expect_raises",
    "expect_rejected",
    "expect_tensor",
    "expect_unchanged",
    "fail",
    "hint",
    "legal_inputs",
    "reference_grads",
    "replay_agrees",
    "same_bits",
    "seeded_randn",
    "seeded_uniform",
    "tolerance",
    "vjp",
]


# ---------------------------------------------------------------------------------------------- registration


# Ids of checks and of the contract's clauses: lowercase dotted words, e.g. "loss.hand_example".
CLAUSE_ID_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$"


@dataclass(frozen=True)
class Check:
    id: str
    title: str
    group: str
    required: bool
    function: Callable[..., None]
    wants_context: bool
    clauses: tuple[str, ...] = ()  # ids of the problem.toml [[clauses]] this check tests
    # Work the check's first run in a process would do that needs no submission (drawing its examples), as steps a
    # grading host may run ahead of any grading (grader.prepare). Each is idempotent; skipping them changes no
    # verdict, only how long a problem's first grading in a process takes.
    preparations: tuple[Callable[[], object], ...] = ()


_MARK = "__paperlab_check__"


def check(
    id: str, title: str, *, group: str | None = None, required: bool | None = None, clauses: Sequence[str] = ()
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a check. `group` defaults to the part of `id` before the first dot. `required` defaults to
    whether the group is listed in problem.toml's required_groups; pass False for an advisory check.
    `clauses` names the contract clauses (problem.toml [[clauses]] ids) the check tests; loading the problem
    fails when one is not declared there."""
    if isinstance(clauses, str):  # clauses="a.b" would otherwise read as the clauses "a", ".", "b"
        raise TypeError(f"check '{id}': clauses must be a list of clause ids, e.g. clauses=[{clauses!r}]")
    named = tuple(clauses)
    for clause in named:
        if not isinstance(clause, str) or not re.fullmatch(CLAUSE_ID_PATTERN, clause):
            raise ValueError(f"check '{id}': clause id {clause!r} must be lowercase dotted words such as "
                             "'loss.normalise'")

    def register(function: Callable[..., None]) -> Callable[..., None]:
        setattr(function, _MARK, (id, title, group or id.split(".")[0], required, named))
        return function

    return register


def collect_checks(module: ModuleType, *, required_groups: Sequence[str]) -> tuple[Check, ...]:
    """The module's checks in definition order."""
    found: list[Check] = []
    seen: set[str] = set()
    for function in vars(module).values():
        mark = getattr(function, _MARK, None)
        if mark is None or not callable(function):
            continue
        check_id, title, group, required, clauses = mark
        if check_id in seen:
            raise ValueError(f"{module.__file__}: check id '{check_id}' is used twice")
        seen.add(check_id)
        parameters = inspect.signature(function).parameters
        found.append(
            Check(
                id=check_id,
                title=title,
                group=group,
                required=(group in required_groups) if required is None else required and group in required_groups,
                function=function,
                wants_context=len(parameters) >= 3,
                clauses=clauses,
            )
        )
    found.sort(key=lambda c: c.function.__code__.co_firstlineno)
    return tuple(found)


_LEGAL_INPUTS_MARK = "__paperlab_legal_inputs__"

LegalInputs = Callable[[dict[str, Any], dict[str, int]], dict[str, Any]]


def legal_inputs(function: str) -> Callable[[LegalInputs], LegalInputs]:
    """Register the function that turns drawn arguments of `function` into legal ones, for what a contract's
    ranges cannot say (unit rows, a decreasing schedule). It receives the drawn arguments (contiguous, in the
    dtype being tried) and the size of every symbol, and returns the arguments; the generic battery and the
    property search call it on every input they draw."""

    def register(make_legal: LegalInputs) -> LegalInputs:
        setattr(make_legal, _LEGAL_INPUTS_MARK, function)
        return make_legal

    return register


def collect_legal_inputs(module: ModuleType) -> dict[str, LegalInputs]:
    """The @legal_inputs functions of a checks module, by the function they are for."""
    found: dict[str, LegalInputs] = {}
    for value in vars(module).values():
        function = getattr(value, _LEGAL_INPUTS_MARK, None)
        if isinstance(function, str) and callable(value):
            if function in found:
                where = getattr(module, "__file__", module.__name__)
                raise ValueError(f"{where}: two @legal_inputs functions for '{function}'")
            found[function] = value
    return found


# ------------------------------------------------------------------------------------------------ protocols


class Context(Protocol):
    """`ctx`, the optional third argument of a check (implemented by the judge)."""

    # pragma: no mutate block (a Protocol's stub never runs; the judge's Context has its own default)
    def record_experiment(self, *, steps: Sequence[int], series: dict[str, Sequence[float]],
                          x_label: str = "step") -> None: ...


class SubmissionFunction(Protocol):
    """A learner's function as a check sees it (implemented by the judge)."""

    name: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def call(self, *args: Any, grads: Sequence[str] = (), grad_output: Any = None, **kwargs: Any) -> CallResult: ...

    # pragma: no mutate block (a Protocol's stub never runs; the judge's RemoteFunction has its own defaults)
    def map(self, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]], *, grads: Sequence[str] = (),
            grad_outputs: Sequence[Any] | None = None, keep: bool = False) -> list[CallResult]: ...


class Submission(Protocol):
    """`sub`, the first argument of a check: `sub.NAME` is the learner's function NAME (implemented by the judge).
    `sub.from_helpers(NAME, uses=...)` is function NAME of the problem's helpers.py, run in the worker and handed
    the learner's functions `uses` as a dict, its first argument."""

    def __getattr__(self, name: str) -> SubmissionFunction: ...

    def from_helpers(self, name: str, *, uses: Sequence[str]) -> SubmissionFunction: ...


# ------------------------------------------------------------------------------------------------- helpers


def fail(message: str) -> NoReturn:
    raise CheckFailed(message)


def _fail(message: str, call: CallSource, hint: str = "") -> NoReturn:
    """Fail with the hint as its own sentence, remembering the call a diagnosis may explain better."""
    raise CheckFailed(with_hint(message, hint), call=call if isinstance(call, CallResult) else None, bare=message)


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-7, 1e-9),
    torch.float32: (1e-5, 1e-6),
    torch.float16: (1e-2, 1e-3),
    torch.bfloat16: (2e-2, 1e-2),
}


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """(rtol, atol) for comparing results computed in `dtype`: a few units in the last place of the
    dtype's precision, enough for a different but correct order of operations and nothing more."""
    return _TOLERANCES.get(dtype, (0.0, 0.0))


def same_bits(got: Any, expected: Any) -> bool:
    """Whether a value is exactly another: a tensor of the same class, dtype and shape with the same values and
    the same signs of zero (nan is never the same), a tuple or list of the same type and length whose items are
    each exactly the other's, or a plain value of the same type that compares equal. What a check that replays a
    run's calls compares each answer with (docs/authoring.md, a run whose calls feed each other): no tolerance,
    because the run it accepts must be the very run the calls make."""
    if isinstance(expected, tuple | list):
        return (type(got) is type(expected) and len(got) == len(expected)
                and all(same_bits(item, wanted) for item, wanted in zip(got, expected, strict=True)))
    if isinstance(expected, torch.Tensor):
        if not (type(got) is type(expected) and got.dtype == expected.dtype and got.shape == expected.shape):
            return False
        if not bool(torch.equal(got, expected)):
            return False
        return not expected.is_floating_point() or bool(torch.equal(torch.signbit(got), torch.signbit(expected)))
    return type(got) is type(expected) and bool(got == expected)


Call = tuple[tuple[Any, ...], dict[str, Any]]  # one call's positional and keyword arguments, as `.map` takes them


def replay_agrees(function: SubmissionFunction, made: Sequence[tuple[Call, Any]], *,
                  grads: Sequence[str] = ()) -> bool:
    """Whether the learner's `function`, asked every call of a run again in one request, answers each bit for bit as
    the run did (same_bits). `made` pairs each call with the run's answer: its value, or, with `grads` named, a
    tuple of the value and the gradient into each of them, in order. An answer that raised, differs by one bit or
    lacks a gradient disagrees. What a check asks before it takes a run made in the worker (docs/authoring.md, a
    run whose calls feed each other); a broken limit (WorkerLost) propagates, for the check to fall back."""
    results = function.map([call for call, _ in made], grads=tuple(grads))
    for result, (_, answer) in zip(results, made, strict=True):
        if grads:
            if not (isinstance(answer, tuple | list) and len(answer) == len(grads) + 1):
                return False
            value, gradients = answer[0], answer[1:]
        else:
            value, gradients = answer, ()
        if result.raised is not None or not same_bits(result.value, value):
            return False
        if not all(same_bits(result.grads.get(name), gradient)
                   for name, gradient in zip(grads, gradients, strict=True)):
            return False
    return True


CallSource = str | CallResult | None  # the call a value came from: a CallResult is described only if a check fails


class _Label:
    """'what of call', formatted only when a failure message uses it (describing a call takes time)."""

    __slots__ = ("what", "call")

    def __init__(self, what: str, call: CallSource) -> None:
        self.what = what
        self.call = call

    def __format__(self, spec: str) -> str:
        call = self.call.call if isinstance(self.call, CallResult) else self.call
        return format(f"{self.what} of {call}" if call else self.what, spec)


def expect_tensor(
    got: Any,
    *,
    shape: Sequence[int] | None = None,
    dtype: torch.dtype | None = None,
    device: str | None = None,
    requires_grad: bool | None = None,
    what: str = "the result",
    call: CallSource = None,
) -> torch.Tensor:
    """Check a value is a tensor with the given properties, in the order a learner should fix them."""
    label = _Label(what, call)
    if not isinstance(got, torch.Tensor):
        _fail(f"{label}: expected a torch.Tensor, got {type(got).__name__} {describe(got)}", call)
    if shape is not None and tuple(got.shape) != tuple(shape):
        _fail(f"{label}: expected shape {tuple(shape)}, got {tuple(got.shape)}", call)
    if dtype is not None and got.dtype != dtype:
        _fail(f"{label}: expected dtype {dtype}, got {got.dtype}", call)
    if device is not None and got.device.type != torch.device(device).type:
        fail(f"{label}: expected device {device}, got {got.device}")
    if requires_grad is not None and got.requires_grad != requires_grad:
        wanted = "to require grad" if requires_grad else "not to require grad"
        fail(f"{label}: expected {wanted}, but requires_grad is {got.requires_grad}")
    return got


def expect_close(
    got: Any,
    expected: Any,
    *,
    what: str = "the result",
    call: CallSource = None,
    rtol: float | None = None,
    atol: float | None = None,
    check_dtype: bool = True,
    equal_nan: bool = False,
    hint: str = "",
) -> None:
    """Compare a value from the learner with the expected one: tensors by shape, dtype, device then values
    (reporting the largest errors and where they are), tuples element by element, numbers with tolerance."""
    label = _Label(what, call)
    if isinstance(expected, torch.Tensor):
        expect_tensor(
            got,
            shape=tuple(expected.shape),
            dtype=expected.dtype if check_dtype else None,
            device=expected.device.type,
            what=what,
            call=call,
        )
        default_rtol, default_atol = tolerance(expected.dtype)
        message = _tensor_mismatch(
            got.detach(),
            expected.detach(),
            rtol=default_rtol if rtol is None else rtol,
            atol=default_atol if atol is None else atol,
            equal_nan=equal_nan,
        )
        if message:
            # an error of float32's size on float64 values is not what the check's hint is about: say what it is
            _fail(f"{label}: {message}", call, precision_note(got.detach(), expected.detach()) or hint)
        return
    if isinstance(expected, tuple | list):
        if not isinstance(got, tuple | list) or len(got) != len(expected):
            fail(f"{label}: expected a {type(expected).__name__} of {len(expected)} items, got {describe(got)}")
        for index, (item, wanted) in enumerate(zip(got, expected, strict=True)):
            expect_close(
                item, wanted, what=f"{what}[{index}]", call=call, rtol=rtol, atol=atol,
                check_dtype=check_dtype, equal_nan=equal_nan, hint=hint,
            )
        return
    if isinstance(expected, float):
        if isinstance(got, bool) or not isinstance(got, int | float):
            fail(f"{label}: expected a number close to {expected:.6g}, got {describe(got)}")
        r, a = (1e-7, 1e-9) if rtol is None and atol is None else (rtol or 0.0, atol or 0.0)
        both_nan = equal_nan and math.isnan(got) and math.isnan(expected)
        if not (math.isclose(got, expected, rel_tol=r, abs_tol=a) or both_nan):
            wanted, came = _distinct(expected, got)  # .6g printed 0.1000001 against 0.1 as "expected 0.1, got 0.1"
            _fail(f"{label}: expected {wanted}, got {came}", call, hint)
        return
    expect_equal(got, expected, what=what, call=call, hint=hint)


# float32 keeps 24 bits (eps 1.2e-7): a float64 result computed partly in float32 is off by 1e-10 to 1e-6 of its
# scale (a rounded constant may land close to its value), far more than float64's own rounding (1e-16) and far
# less than a wrong formula.
FLOAT32_SIZED_RTOL = 1e-5
FLOAT32_SIZED_FLOOR = 1e-10


def precision_note(got: torch.Tensor, expected: torch.Tensor) -> str:
    """A sentence for a float64 result whose error is of float32's size (some step ran in float32), else ''."""
    if got.dtype != torch.float64 or expected.dtype != torch.float64 or got.shape != expected.shape:
        return ""
    if got.numel() == 0 or not (bool(torch.isfinite(got).all()) and bool(torch.isfinite(expected).all())):
        return ""
    scale = float(expected.abs().max())
    worst = float((got - expected).abs().max())
    if not FLOAT32_SIZED_FLOOR * scale <= worst <= FLOAT32_SIZED_RTOL * scale:
        return ""  # larger than float32 rounding makes it, or smaller (or nothing to measure it against)
    return (f"The error, at most {worst:.2g}, is the size of float32 rounding: on float64 inputs some step of your "
            "computation runs in float32 (a tensor made without dtype=, a .float(), torch.tensor of Python "
            "numbers); make every intermediate in the inputs' dtype.")


def expect_equal(got: Any, expected: Any, *, what: str = "the result", call: CallSource = None, hint: str = "") -> None:
    """Exact equality: same type for Python scalars (True is not 1), bit-equal tensors of the same dtype."""
    label = _Label(what, call)
    if isinstance(expected, torch.Tensor):
        expect_tensor(got, shape=tuple(expected.shape), dtype=expected.dtype, what=what, call=call)
        message = _tensor_mismatch(got.detach(), expected.detach(), rtol=0.0, atol=0.0, equal_nan=True)
        if message:
            _fail(f"{label}: expected exactly equal values; {message}", call, hint)
        return
    if isinstance(expected, tuple | list):
        if type(got) is not type(expected) or len(got) != len(expected):
            _fail(f"{label}: expected {describe(expected)}, got {describe(got)}", call, hint)
        for index, (item, wanted) in enumerate(zip(got, expected, strict=True)):
            expect_equal(item, wanted, what=f"{what}[{index}]", call=call, hint=hint)
        return
    if type(got) is not type(expected) or got != expected:
        _fail(f"{label}: expected {describe(expected)} ({type(expected).__name__}), "
              f"got {describe(got)} ({type(got).__name__})", call, hint)


def _tensor_mismatch(got: torch.Tensor, expected: torch.Tensor, *, rtol: float, atol: float, equal_nan: bool) -> str:
    """'' when close; otherwise the max errors and the first and worst mismatching index."""
    if got.numel() == 0:
        return ""
    # Equal values are close whatever the tolerance: one kernel, where the rule below takes six (nan is never
    # equal to itself here, so equal_nan is left to the rule).
    if got.dtype == expected.dtype and torch.equal(got, expected):
        return ""
    g = got.to(torch.float64)
    e = expected.to(torch.float64)
    # The usual case, in one call: torch.isclose's rule is the one below (|g - e| <= atol + rtol |e|, an infinity
    # matches only itself, nan matches nan only with equal_nan); the rest of this function explains a mismatch.
    fast = math.isfinite(rtol) and math.isfinite(atol)  # torch.isclose lets an infinite tolerance match infinity
    if fast and bool(torch.isclose(g, e, rtol=rtol, atol=atol, equal_nan=equal_nan).all()):
        return ""
    g_nan, e_nan = torch.isnan(g), torch.isnan(e)
    finite = torch.isfinite(g) & torch.isfinite(e)
    same_inf = torch.isinf(e) & (g == e)  # an infinity matches only itself, whatever the tolerance
    diff = (g - e).abs()
    allowed = atol + rtol * e.abs()
    both_nan = g_nan & e_nan if equal_nan else torch.zeros_like(g_nan)
    # equal values are close whatever the tolerance (rtol=inf made `allowed` nan at 0 and flagged 0 against 0)
    bad = ~((((diff <= allowed) | (g == e)) & finite) | same_inf | both_nan)
    if not bool(bad.any()):
        return ""
    worst_flat = int(torch.argmax(torch.where(bad, torch.nan_to_num(diff, nan=math.inf, posinf=math.inf), -1.0)))
    first_flat = int(torch.nonzero(bad.flatten())[0])
    count = int(bad.sum())

    def at(flat: int) -> str:
        index = _unravel(flat, tuple(g.shape))
        where = f" at index {list(index)}" if index else ""
        wanted, came = _distinct(e.flatten()[flat].item(), g.flatten()[flat].item())
        return f"{where}: expected {wanted}, got {came}"

    parts = [f"{count} of {g.numel()} values differ (rtol={rtol:g}, atol={atol:g})"]
    if g.numel() == 1:
        wanted, came = _distinct(e.item(), g.item())
        parts = [f"expected {wanted}, got {came} (rtol={rtol:g}, atol={atol:g})"]
    else:
        parts.append(_error_sizes(diff, e, bad))
        parts.append(f"first{at(first_flat)}")
        if worst_flat != first_flat:
            parts.append(f"worst{at(worst_flat)}")
    return "; ".join(parts)


def _error_sizes(diff: torch.Tensor, expected: torch.Tensor, bad: torch.Tensor) -> str:
    """'max abs error A, max rel error R' over the differing values where both are finite. No relative error
    where 0 was expected (dividing by a floor there printed errors like 1e+30, which read as a blow-up), and
    nan or infinite values are counted apart (their error is not a number)."""
    finite = bad & torch.isfinite(diff)
    parts = []
    if bool(finite.any()):
        zero = torch.zeros_like(diff)
        text = f"max abs error {float(torch.where(finite, diff, zero).max()):.3g}"
        at_zero = finite & (expected == 0)
        elsewhere = finite & (expected != 0)
        if bool(elsewhere.any()):
            relative = torch.where(elsewhere, diff / expected.abs().clamp_min(1e-300), zero)
            text += f", max rel error {float(relative.max()):.3g}"
            if bool(at_zero.any()):
                text += f" ({int(at_zero.sum())} more where 0 is expected)"
        else:
            text += " (expected 0 at every such value, so no relative error)"
        parts.append(text)
    not_finite = int((bad & ~torch.isfinite(diff)).sum())
    if not_finite:
        parts.append(f"{not_finite} {'is' if not_finite == 1 else 'are'} nan or infinite")
    return ", ".join(parts)


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index of element `flat` of a row-major tensor of `shape` (torch.unravel_index costs ~0.3 s the first
    time a process calls it, which the first failing check of a fresh server would pay)."""
    index = []
    for size in reversed(shape):
        flat, position = divmod(flat, size)
        index.append(position)
    return tuple(reversed(index))


def _distinct(expected: float, got: float) -> tuple[str, str]:
    """Format two numbers with enough digits that they do not look equal when they are not."""
    for digits in (8, 12, 17):
        a, b = f"{expected:.{digits}g}", f"{got:.{digits}g}"
        if a != b:
            return a, b
    return a, b


def expect_raises(
    exceptions: str | Sequence[str], function: SubmissionFunction, *args: Any, **kwargs: Any
) -> ExceptionInfo:
    """Call the learner's function and expect it to raise one of the named exception types (or a subclass).
    Names, not classes: the learner's exception exists only in the sandbox."""
    names = (exceptions,) if isinstance(exceptions, str) else tuple(exceptions)
    wanted = " or ".join(names)
    result = function.call(*args, **kwargs)
    if result.raised is None:
        fail(f"{result.call}: expected {wanted}, but it returned {describe(result.value)}")
    assert result.raised is not None
    if not result.raised.is_a(*names):
        fail(f"{result.call}: expected {wanted}, but it raised {result.raised.summary()}")
    return result.raised


@contextmanager
def hint(text: str) -> Iterator[None]:
    """`with hint("..."):` appends the hint to a failure raised inside the block (not to an exception the
    learner's code raised: that message is theirs)."""
    try:
        yield
    except SubmissionRaised:
        raise
    except CheckFailed as exc:
        raise CheckFailed(with_hint(str(exc), text), call=exc.call, bare=exc.bare) from None


def with_hint(message: str, hint: str) -> str:
    """The message, then the hint as a sentence of its own."""
    if not hint:
        return message
    return f"{message}{' ' if message.endswith('.') else '. '}{hint}"


def expect_unchanged(result: CallResult, *, hint: str = "") -> None:
    """The call did not modify any of its arguments in place."""
    if result.raised is not None:
        raise SubmissionRaised(result)
    if result.mutated:
        fail(with_hint(f"{result.call} modified its argument(s) {', '.join(result.mutated)} in place; "
                        "inputs must be left unchanged (work on a copy)", hint))


def expect_no_alias(result: CallResult, *, hint: str = "") -> None:
    """No returned tensor shares memory with an argument."""
    if result.raised is not None:
        raise SubmissionRaised(result)
    if result.aliased:
        fail(with_hint(f"{result.call} returned a tensor that shares storage with {', '.join(result.aliased)}; "
                        "return new storage (e.g. .clone()), so later edits of one cannot change the other", hint))


def expect_grad_none(result: CallResult, *names: str, hint: str = "") -> None:
    """After backward() on the result, these arguments' .grad is still None (their branch was detached)."""
    if result.raised is not None:
        raise SubmissionRaised(result)
    for name in names:
        if name not in result.grads:
            fail(f"internal: gradient of '{name}' was not requested")
        if result.grads[name] is not None:
            fail(with_hint(f"after backward() on {result.call}, {name}.grad should be None "
                            f"(no gradient may flow into {name}), but it is {describe(result.grads[name])}", hint))


def expect_grad_close(
    result: CallResult, name: str, expected: torch.Tensor, *, rtol: float | None = None,
    atol: float | None = None, source: str = "the reference", hint: str = "",
) -> None:
    if result.raised is not None:
        raise SubmissionRaised(result)
    grad = result.grads.get(name)
    if grad is None and result.backward_error:
        fail(with_hint(f"after {result.call}, no gradient could flow back to {name}: {result.backward_error}", hint))
    if grad is None:
        fail(with_hint(f"after backward() on {result.call}, {name}.grad is None; the result must depend "
                        f"differentiably on {name}", hint))
    expect_close(grad, expected, what=f"{name}.grad (compared with {source})", call=result.call, rtol=rtol,
                 atol=atol, hint=hint)


def expect_rejected(
    exceptions: str | Sequence[str],
    function: SubmissionFunction,
    calls: Sequence[tuple[tuple[Any, ...], dict[str, Any], str]],
) -> None:
    """Every call (args, kwargs, reason) must raise one of the named exceptions; all run in one round trip.
    The failure names the first call that did not, and why it should have."""
    names = (exceptions,) if isinstance(exceptions, str) else tuple(exceptions)
    wanted = " or ".join(names)
    results = function.map([(args, kwargs) for args, kwargs, _ in calls])
    for result, (_, _, reason) in zip(results, calls, strict=True):
        if result.raised is None:
            fail(f"{result.call}: expected {wanted} because {reason}, but it returned {describe(result.value)}")
        elif not result.raised.is_a(*names):
            fail(f"{result.call}: expected {wanted} because {reason}, but it raised {result.raised.summary()}")


@overload
def central_differences(function: SubmissionFunction, args: tuple[Any, ...], position: int, *,
                        kwargs: dict[str, Any] | None = None, eps: float = 1e-6,
                        grad_output: Any = None) -> torch.Tensor: ...


@overload
def central_differences(function: SubmissionFunction, args: tuple[Any, ...], position: Sequence[int], *,
                        kwargs: dict[str, Any] | None = None, eps: float = 1e-6,
                        grad_output: Any = None) -> tuple[torch.Tensor, ...]: ...


def central_differences(
    function: SubmissionFunction,
    args: tuple[Any, ...],
    position: int | Sequence[int],
    *,
    kwargs: dict[str, Any] | None = None,
    eps: float = 1e-6,
    grad_output: Any = None,
) -> torch.Tensor | tuple[torch.Tensor, ...]:
    """d result / d args[position] by central differences, evaluating the learner's function at every
    perturbed input in one batch. Use float64 inputs. For a result that is not a scalar, pass the cotangent
    the gradient was computed with (`CallResult.grad_output`, a tensor or a tuple of tensors shaped like the
    result): the differences are then those of sum(grad_output * result), the vector-Jacobian product.
    `position` may be several positions: the gradients of each, in one round trip, as a tuple."""
    kwargs = kwargs or {}
    positions = (position,) if isinstance(position, int) else tuple(position)
    calls = []
    for where in positions:
        base = args[where]
        if not isinstance(base, torch.Tensor) or base.dtype != torch.float64:
            raise TypeError("central_differences needs a float64 tensor argument")
        for flat in range(base.numel()):
            for sign in (1.0, -1.0):
                shifted = base.detach().clone()
                shifted.view(-1)[flat] += sign * eps
                calls.append((args[:where] + (shifted,) + args[where + 1 :], kwargs))
    values = [_projected(result, grad_output) for result in function.map(calls)]
    gradients = []
    start = 0
    for where in positions:
        count = args[where].numel()
        pairs = values[start : start + 2 * count]
        start += 2 * count
        gradient = torch.tensor([(pairs[2 * i] - pairs[2 * i + 1]) / (2 * eps) for i in range(count)],
                                dtype=torch.float64)
        gradients.append(gradient.reshape(args[where].shape))
    return gradients[0] if isinstance(position, int) else tuple(gradients)


def reference_grads(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    wrt: Sequence[str],
    *,
    kwargs: dict[str, Any] | None = None,
    grad_output: Any = None,
) -> dict[str, torch.Tensor | None]:
    """Gradients of a trusted function (the reference: `ref.NAME`) with respect to the arguments named in `wrt`,
    computed in float64 on copies and returned in each argument's own dtype: the vector-Jacobian products with
    `grad_output` (a tensor, or a tuple for a tuple of results; ones for a one-element result when omitted).
    None for an argument no gradient reaches."""
    names = tuple(inspect.signature(function).parameters)
    bound = {names[index]: value for index, value in enumerate(args)}
    bound.update(kwargs or {})
    leaves: dict[str, torch.Tensor] = {}
    copies: dict[str, Any] = {}
    for name, value in bound.items():
        if isinstance(value, torch.Tensor):
            value = value.detach().clone()
            if value.dtype.is_floating_point:
                value = value.to(torch.float64)
                if name in wrt:
                    value.requires_grad_(True)
                    leaves[name] = value
        copies[name] = value
    missing = [name for name in wrt if name not in leaves]
    if missing:
        raise TypeError(f"reference_grads: {', '.join(missing)} is not a float tensor argument of this call")
    out = function(**copies)
    outputs = [t for t in (out if isinstance(out, tuple | list) else (out,)) if isinstance(t, torch.Tensor)]
    if grad_output is None:
        cotangents: list[torch.Tensor] = [torch.ones_like(t) for t in outputs]
    else:
        given = grad_output if isinstance(grad_output, tuple | list) else (grad_output,)
        if len(given) != len(outputs):
            raise ValueError(f"reference_grads: {len(given)} cotangents for {len(outputs)} tensor results")
        # autograd's engine casts each cotangent to its output's dtype itself
        cotangents = [given[index].detach() for index in range(len(outputs))]
    pairs = [(t, cotangents[index]) for index, t in enumerate(outputs) if t.requires_grad]
    if not pairs:
        return {name: None for name in wrt}
    grads = vjp([t for t, _ in pairs], [leaves[name] for name in wrt], [c for _, c in pairs])
    return {name: None if (grad := grads[index]) is None else grad.to(bound[name].dtype)
            for index, name in enumerate(wrt)}


def seeded_randn(seed: int, *shape: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Standard normal values from a generator of their own: the same tensor in every grading (never the global
    random state, which another check may have moved)."""
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)


def seeded_uniform(seed: int, *shape: int, low: float = 0.0, high: float = 1.0,
                   dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Values uniform in [low, high) from a generator of their own (see seeded_randn)."""
    generator = torch.Generator().manual_seed(seed)
    return (low + (high - low) * torch.rand(*shape, generator=generator, dtype=torch.float64)).to(dtype)


def _projected(result: CallResult, grad_output: Any) -> float:
    """The scalar central differences are taken of: the result itself, or its product with the cotangent."""
    value = result.unwrap()
    if grad_output is None:
        expect_tensor(value, shape=(), what="the result", call=result)
        return float(value)
    if isinstance(grad_output, tuple | list):
        if not isinstance(value, tuple | list) or len(value) != len(grad_output):
            fail(f"{result.call}: expected {len(grad_output)} tensors to differentiate, got {describe(value)}")
        pairs = list(zip(value, grad_output, strict=True))
    else:
        pairs = [(value, grad_output)]
    total = 0.0
    for index, (part, cotangent) in enumerate(pairs):
        what = f"the result[{index}]" if len(pairs) > 1 else "the result"
        part = expect_tensor(part, shape=tuple(cotangent.shape), what=what, call=result)
        total += float((part.detach().to(torch.float64) * cotangent.to(torch.float64)).sum())
    return total
