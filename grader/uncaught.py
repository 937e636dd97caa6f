"""Why a mutant was not caught: compare it with the reference on every input the checks used, plus random ones.

The self-test records every call the checks send to the worker while it grades the reference (`CallRecorder`),
then, for a mutant no required check caught, runs the mutant and the reference side by side in this process on
those inputs and on random inputs of the same shapes and dtypes, comparing what the judge compares: the value,
the exception, the gradients of the inputs that require grad, and in-place edits of the inputs. Either they
agree everywhere ("probably correct, not a mutant") or the first input where they differ is shown, with what
differs, so the author can write the check that looks there.

Mutants and the reference are the author's own trusted code, so they run here, outside the sandbox.
"""

from __future__ import annotations

import math
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from grader.calls import CheckFailed, describe_call
from grader.checks import expect_close
from grader.describe import describe
from grader.problems import Problem

RANDOM_DRAWS = 2  # random inputs per distinct shape of recorded call
MAX_SHAPES = 200  # distinct call shapes that get random inputs, so the analysis stays a matter of seconds
MAX_RECORDED = 5000  # calls kept from one grading; a battery of finite differences makes thousands
# Elements of tensor arguments kept: one call at realistic scale (a MoCo queue of 65536 keys) is left out, so
# recording costs the self-test neither the memory nor the time of copying it.
MAX_CALL_ELEMENTS = 1_000_000
MAX_TOTAL_ELEMENTS = 20_000_000


@dataclass(frozen=True)
class RecordedCall:
    """One call a check made of a learner's function, with private copies of its arguments."""

    check: str  # the id of the check that made it
    function: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    origin: str = "used by"  # "used by" (the check's own input) or "random, shaped like an input of"


@dataclass
class CallRecorder:
    """While active, records every call the checks send through the judge.

    It wraps grader.judge's check runner from outside (the judge is not the self-test's to change): `run_check`
    to know which check is running, `CheckRunner.run_calls` to copy each call's arguments before they go out."""

    calls: list[RecordedCall] = field(default_factory=list)
    unavailable: str = ""  # why nothing could be recorded, if so
    skipped: int = 0  # calls left out for their size or number
    elements: int = 0  # tensor elements kept so far

    def keep(self, check: str, function: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        size = _elements((args, kwargs))
        too_many = len(self.calls) >= MAX_RECORDED or self.elements + size > MAX_TOTAL_ELEMENTS
        if too_many or size > MAX_CALL_ELEMENTS:
            self.skipped += 1
            return
        self.elements += size
        self.calls.append(RecordedCall(check, function, _copy(args), _copy(kwargs)))

    @contextmanager
    def active(self) -> Iterator[CallRecorder]:
        from grader import judge

        runner_class = getattr(judge, "CheckRunner", None)
        if not hasattr(judge, "run_check") or not hasattr(runner_class, "run_calls"):
            self.unavailable = "grader.judge no longer has run_check and CheckRunner.run_calls to record calls from"
            yield self
            return
        original_run_check, original_run_calls = judge.run_check, runner_class.run_calls  # type: ignore[union-attr]
        owners: dict[int, str] = {}
        recorder = self

        def run_check(check: Any, runner: Any, context: Any) -> Any:
            owners[id(runner)] = check.id
            return original_run_check(check, runner, context)

        def run_calls(runner: Any, function: Any, calls: list[Any], *args: Any, **kwargs: Any) -> Any:
            for call_args, call_kwargs in calls:
                recorder.keep(owners.get(id(runner), "?"), function.name, tuple(call_args), dict(call_kwargs))
            return original_run_calls(runner, function, calls, *args, **kwargs)

        judge.run_check = run_check
        runner_class.run_calls = run_calls  # type: ignore[union-attr]
        try:
            yield self
        finally:
            judge.run_check = original_run_check
            runner_class.run_calls = original_run_calls  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------------- copying values


def _copy(value: Any) -> Any:
    """A private copy: tensors cloned (keeping strides where torch can, and requires_grad), containers rebuilt."""
    if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        if value.requires_grad and (copy.is_floating_point() or copy.is_complex()):
            copy.requires_grad_(True)
        return copy
    if isinstance(value, tuple):
        return tuple(_copy(item) for item in value)
    if isinstance(value, list):
        return [_copy(item) for item in value]
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    return value


def _elements(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, tuple | list):
        return sum(_elements(item) for item in value)
    if isinstance(value, dict):
        return sum(_elements(item) for item in value.values())
    return 0


def _randomised(value: Any, generator: torch.Generator) -> Any:
    """The same structure with every floating tensor redrawn: normal values on the original's scale."""
    if isinstance(value, torch.Tensor) and value.is_floating_point() and value.device.type == "cpu":
        scale = float(value.detach().abs().max()) if value.numel() else 1.0
        scale = scale if math.isfinite(scale) and scale > 0 else 1.0
        fresh = torch.randn(value.shape, generator=generator, dtype=torch.float64).to(value.dtype) * scale
        return fresh.requires_grad_(value.requires_grad)
    if isinstance(value, tuple):
        return tuple(_randomised(item, generator) for item in value)
    if isinstance(value, list):
        return [_randomised(item, generator) for item in value]
    if isinstance(value, dict):
        return {key: _randomised(item, generator) for key, item in value.items()}
    return value


def _shape_key(call: RecordedCall) -> str:
    def key(value: Any) -> str:
        if isinstance(value, torch.Tensor):
            return f"{value.dtype}{tuple(value.shape)}{value.requires_grad}"
        if isinstance(value, tuple | list):
            return "(" + ",".join(key(item) for item in value) + ")"
        if isinstance(value, dict):
            return "{" + ",".join(f"{k}:{key(v)}" for k, v in value.items()) + "}"
        return repr(value)

    return f"{call.function}{key(call.args)}{key(call.kwargs)}"


def random_calls(recorded: list[RecordedCall], *, seed: int = 0) -> list[RecordedCall]:
    """Random inputs of the contract, as the checks' own inputs describe it: for each distinct shape of call that
    has a floating tensor, RANDOM_DRAWS calls with every floating tensor redrawn and everything else kept."""
    generator = torch.Generator().manual_seed(seed)
    seen: set[str] = set()
    drawn: list[RecordedCall] = []
    for call in recorded:
        key = _shape_key(call)
        if key in seen or len(seen) >= MAX_SHAPES or not _has_float_tensor((call.args, call.kwargs)):
            continue
        seen.add(key)
        for _ in range(RANDOM_DRAWS):
            drawn.append(RecordedCall(call.check, call.function, _randomised(call.args, generator),
                                      _randomised(call.kwargs, generator), origin="random, shaped like an input of"))
    return drawn


def _has_float_tensor(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        return value.is_floating_point()
    if isinstance(value, tuple | list):
        return any(_has_float_tensor(item) for item in value)
    if isinstance(value, dict):
        return any(_has_float_tensor(item) for item in value.values())
    return False


# ------------------------------------------------------------------------------------------ running side by side


@dataclass
class Outcome:
    """What one in-process call did, in the terms the checks judge."""

    value: Any = None
    raised: str = ""  # "TypeError: message" or ""
    grads: dict[str, torch.Tensor | None] = field(default_factory=dict)
    grad_error: str = ""
    mutated: tuple[str, ...] = ()


def run_call(function: Callable[..., Any], parameters: tuple[str, ...], call: RecordedCall) -> Outcome:
    """Call `function` on fresh copies of the call's arguments, seeded, and gather what the judge would see."""
    args, kwargs = _copy(call.args), _copy(call.kwargs)
    pristine = _copy((args, kwargs))
    # Warnings stay warnings (pytest may turn them into errors, which would read as the call raising).
    with warnings.catch_warnings(), torch.random.fork_rng(devices=[]):
        warnings.simplefilter("ignore")
        torch.manual_seed(0)  # a mutant that draws random numbers (dropout) draws the reference's
        try:
            value = function(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the exception is the outcome being compared
            return Outcome(raised=f"{type(exc).__name__}: {exc}")
    named = {(parameters[i] if i < len(parameters) else f"arg{i}"): a for i, a in enumerate(args)} | kwargs
    outcome = Outcome(value=_detached(value), mutated=_mutated(named, pristine, parameters))
    outcome.grads, outcome.grad_error = _gradients(value, named)
    return outcome


def _detached(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple | list):
        return type(value)(_detached(item) for item in value)
    return value


def _mutated(named: dict[str, Any], pristine: tuple[tuple[Any, ...], dict[str, Any]],
             parameters: tuple[str, ...]) -> tuple[str, ...]:
    before_args, before_kwargs = pristine
    before = {(parameters[i] if i < len(parameters) else f"arg{i}"): a for i, a in enumerate(before_args)}
    before |= before_kwargs
    changed = []
    for name, value in named.items():
        old = before.get(name)
        if isinstance(value, torch.Tensor) and isinstance(old, torch.Tensor):
            same = value.shape == old.shape and bool(torch.equal(value.detach(), old) or _both_nan_equal(value, old))
            if not same:
                changed.append(name)
    return tuple(changed)


def _both_nan_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    if not a.is_floating_point():
        return False
    return bool(torch.isclose(a.detach(), b, rtol=0, atol=0, equal_nan=True).all())


def _gradients(value: Any, named: dict[str, Any]) -> tuple[dict[str, torch.Tensor | None], str]:
    """Gradients of every input that requires grad, back from a seeded random cotangent (1 for a scalar)."""
    inputs = {n: v for n, v in named.items() if isinstance(v, torch.Tensor) and v.requires_grad}
    outputs = [t for t in _tensors(value) if t.requires_grad]
    if not inputs:
        return {}, ""
    if not outputs:
        return {name: None for name in inputs}, ""
    generator = torch.Generator().manual_seed(1)
    cotangents = [torch.ones_like(t) if t.dim() == 0 else
                  torch.randn(t.shape, generator=generator, dtype=torch.float64).to(t.dtype) for t in outputs]
    try:
        grads = torch.autograd.grad(outputs, list(inputs.values()), cotangents, allow_unused=True)
    except RuntimeError as exc:
        return {}, f"backward failed: {exc}"
    return dict(zip(inputs, grads, strict=True)), ""


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, tuple | list):
        return [t for item in value for t in _tensors(item)]
    return []


def difference(reference: Outcome, mutant: Outcome) -> str:
    """'' when the mutant's outcome passes for the reference's, else what differs, in a check's words."""
    if reference.raised or mutant.raised:
        if reference.raised.split(":")[0] == mutant.raised.split(":")[0]:
            return ""
        ref_text = f"raises {reference.raised}" if reference.raised else f"returns {describe(reference.value)}"
        mut_text = f"raises {mutant.raised}" if mutant.raised else f"returns {describe(mutant.value)}"
        return f"the reference {ref_text}, the mutant {mut_text}"
    try:
        expect_close(mutant.value, reference.value, equal_nan=True)
    except CheckFailed as exc:
        return str(exc)
    if reference.mutated != mutant.mutated:
        edits = ", ".join(mutant.mutated) or "nothing"
        return f"the mutant modifies {edits} in place, the reference {', '.join(reference.mutated) or 'nothing'}"
    if reference.grad_error != mutant.grad_error:
        return f"backward: the reference {reference.grad_error or 'works'}, the mutant {mutant.grad_error or 'works'}"
    for name, expected in reference.grads.items():
        got = mutant.grads.get(name)
        if (expected is None) != (got is None):
            return f"{name}.grad is {'None' if got is None else 'set'} for the mutant, " \
                   f"{'None' if expected is None else 'set'} for the reference"
        if expected is not None:
            try:
                expect_close(got, expected, what=f"{name}.grad", equal_nan=True)
            except CheckFailed as exc:
                return str(exc)
    return ""


# ------------------------------------------------------------------------------------------------- the verdict


@dataclass
class Comparison:
    """The mutant against the reference on `inputs` inputs; `where` is the first differing one, if any."""

    inputs: int
    recorded: int
    where: RecordedCall | None = None
    what: str = ""
    problem: str = ""  # why the comparison could not be made

    def explain(self) -> str:
        if self.problem:
            return f"could not compare it with the reference: {self.problem}"
        if self.where is None:
            return (f"identical to the reference on all {self.inputs} inputs ({self.recorded} the checks used, "
                    f"{self.inputs - self.recorded} random ones like them): probably correct, not a mutant (a "
                    "correct solution written differently belongs in variants/)")
        shown = describe_call(self.where.function, (), self.where.args, self.where.kwargs)
        if self.where.origin == "used by":
            advice = (f"check {self.where.check} makes this call but does not compare what differs, and no "
                      "required check does")
        else:
            advice = "no check makes a call like it: add one that compares this"
        return f"differs on input {shown} ({self.where.origin} check {self.where.check}): {self.what}; {advice}"


def compare_mutant(problem: Problem, code: str, name: str, recorded: list[RecordedCall],
                   cache: dict[int, Outcome] | None = None) -> Comparison:
    """Run the mutant's code in-process and compare it with the reference on the recorded and random inputs.
    `cache` keeps the reference's outcomes between mutants of the same problem (keyed by input index)."""
    calls = recorded + random_calls(recorded)
    comparison = Comparison(inputs=len(calls), recorded=len(recorded))
    if not recorded:
        comparison.problem = "no inputs were recorded from the checks"
        return comparison
    module = types.ModuleType(f"paperlab_uncaught_{name.removesuffix('.py')}")
    try:
        with _importing_from(problem.folder):  # a mutant may import a module of the problem's own
            exec(compile(code, f"mutants/{name}", "exec"), module.__dict__)  # noqa: S102 - the author's mutant
    except Exception as exc:  # noqa: BLE001 - a mutant that cannot run here is reported, not fatal
        comparison.problem = f"it does not run in-process: {type(exc).__name__}: {exc}"
        return comparison
    cache = {} if cache is None else cache
    for index, call in enumerate(calls):
        mutant_function = getattr(module, call.function, None)
        parameters = problem.parameter_names.get(call.function, ())
        if not callable(mutant_function):
            comparison.where, comparison.what = call, f"the mutant defines no {call.function}"
            return comparison
        if index not in cache:
            cache[index] = run_call(getattr(problem.reference, call.function), parameters, call)
        what = difference(cache[index], run_call(mutant_function, parameters, call))
        if what:
            comparison.where, comparison.what = _named(call, parameters), what
            return comparison
    return comparison


@contextmanager
def _importing_from(folder: Path) -> Iterator[None]:
    """Let the code import modules from the problem folder, and forget them afterwards (another problem's
    module of the same name must not be served from the cache)."""
    before = set(sys.modules)
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        for added in set(sys.modules) - before:
            origin = getattr(sys.modules[added], "__file__", None) or ""
            if origin.startswith(str(folder)):
                del sys.modules[added]


def _named(call: RecordedCall, parameters: tuple[str, ...]) -> RecordedCall:
    """The call with its positional arguments named, for the message."""
    named = {(parameters[i] if i < len(parameters) else f"arg{i}"): a for i, a in enumerate(call.args)}
    return RecordedCall(call.check, call.function, (), named | call.kwargs, call.origin)
