"""Specification of grader.judge, driven through an in-process worker: `grade()` with a pool whose session
decodes each call as the sandboxed worker would, runs a plain Python function, and encodes its answer. No
sandbox, no subprocess. Tables: what a check ends in (its status, message, limit, diagnosis), what a call's result
carries, what a report says when loading or the sandbox fails, and the "check bug" errors a problem's author
gets."""

from __future__ import annotations

import dataclasses
import functools
import logging
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import torch

from grader import judge
from grader.calls import CallResult, CheckFailed, ExceptionInfo, TracebackLine, WorkerLost, describe_call
from grader.cancel import CancelToken, GradingStopped
from grader.checks import Check
from grader.contract.expect import contract_mismatch
from grader.contract.schema import FunctionContract
from grader.interleave import Answer, Request
from grader.judge import (
    MAX_SEEN,
    MAX_SEEN_BYTES,
    CheckContext,
    CheckRunner,
    RemoteFunction,
    RemoteSubmission,
    Seen,
    SeenCalls,
    exception_info,
    first_mismatch,
    grade,
)
from grader.limits import Limits
from grader.messages import CallOutcome, CallsReply, CallsRequest, TimedOut, TooLarge
from grader.problems import FunctionSpec, Problem, ProblemSpec
from grader.protocol import (
    MAX_DEPTH,
    MAX_ITEMS,
    Decoder,
    Encoder,
    ProtocolError,
    default_cotangent_bytes,
    storages_of,
)
from grader.report import MAX_MESSAGE_CHARS, CheckResult, Report, cap_text
from grader.sandbox import SandboxUnavailable
from grader.session import LoadResult
from grader.vjp import same_cotangent

LIMITS = Limits(call_timeout_s=2.0, memory_mb=512, message_mb=8, total_timeout_s=30.0)
PARAMETERS = {"add": ("x", "y"), "scale": ("x", "factor")}


@dataclass
class Scripted:
    """What a learner's function returns to make the fake worker answer with these fields (Python values)."""

    value: Any = None
    grads: dict[str, Any] | None = None
    grad_output: Any = None
    mutated: tuple[str, ...] = ()
    aliased: tuple[str, ...] = ()
    shares: tuple[int, ...] = ()
    output: str = ""
    duration_ms: float = 0.0
    backward_error: str | None = None
    missing: bool = False
    raised: ExceptionInfo | None = None


@dataclass
class InProcessWorker:
    """A worker session that runs the learner's functions here. `answers`: replies to give instead of running
    the next requests (an Answer, or an exception to raise)."""

    functions: dict[str, Callable[..., Any]] = field(default_factory=lambda: {"add": adds})
    loaded: LoadResult | BaseException = field(default_factory=lambda: LoadResult(ok=True, functions=("add",)))
    answers: list[Answer | BaseException] = field(default_factory=list)
    time_left: float = 20.0
    advisory_left: float = 5.0
    advisory_at: int | None = None
    notes: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    notes_asked: int = 0
    helpers: dict[str, Callable[..., Any]] = field(default_factory=dict)  # the problem's helpers.py, by name

    def load(self) -> LoadResult:
        if isinstance(self.loaded, BaseException):
            raise self.loaded
        return self.loaded

    def remaining(self) -> float:
        return self.time_left

    def start_advisory_budget(self) -> None:
        self.advisory_at = len(self.requests)  # how many requests the required checks made
        self.time_left = self.advisory_left

    def limit_notes(self) -> str:
        self.notes_asked += 1
        return self.notes

    def grouped_calls(self, requests: Sequence[Request]) -> Iterator[Answer]:
        for request in requests:
            yield self.calls(request.message, request.blobs, timeout=request.timeout, what=request.what,
                             function=request.function)

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str = "") -> Answer:
        self.requests.append({"timeout": timeout, "what": what if isinstance(what, str) else what(),
                              "function": function, "calls": request.calls, "blobs": list(blobs)})
        if self.answers:
            answer = self.answers.pop(0)
            if isinstance(answer, BaseException):
                raise answer
            return answer
        memory = [bytearray(blob) for blob in blobs]  # the arena: what the function writes lands here
        encoder = Encoder(preserve_views=False)
        replies = []
        for call in request.calls:
            encoder.begin()
            decoder = Decoder(memory, copy=False, results=False)
            args, kwargs = decoder.decode(call.arguments)
            given = None if call.grad_output is None else decoder.decode(call.grad_output)
            if call.module:  # a helper, handed the learner's functions it drives, as the worker does
                helper = self.helpers[call.function]
                handed = {name: self.functions[name] for name in call.uses}
                replies.append(self._run_function(functools.partial(helper, handed), call.function, args, kwargs,
                                                  given, encoder))
            else:
                replies.append(self._run(call.function, args, kwargs, given, encoder))
        written = tuple(bytes(now) != bytes(before) for now, before in zip(memory, blobs, strict=True))
        return Answer(CallsReply(tuple(replies)), [bytearray(blob) for blob in encoder.blobs], written)

    def _run(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], given: Any,
             encoder: Encoder) -> CallOutcome:
        return self._run_function(self.functions[name], name, args, kwargs, given, encoder)

    def _run_function(self, function: Callable[..., Any], name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                      given: Any, encoder: Encoder) -> CallOutcome:
        try:
            out = function(*args, **kwargs, **({"grad_output": given} if given is not None else {}))
        except Exception as exc:  # noqa: BLE001 - the learner's exception, summarised as the worker does
            return CallOutcome(raised=ExceptionInfo(type=type(exc).__name__,
                                                  ancestry=tuple(c.__name__ for c in type(exc).__mro__[:-1]),
                                                  message=str(exc), traceback=(TracebackLine(3, name, "x"),)))
        if not isinstance(out, Scripted):
            out = Scripted(value=out)
        return CallOutcome(
            value=encoder.encode(out.value), raised=out.raised, missing=out.missing,
            grads={key: None if grad is None else encoder.encode(grad) for key, grad in (out.grads or {}).items()},
            backward_error=out.backward_error,
            grad_output=None if out.grad_output is None else encoder.encode(out.grad_output),
            mutated=out.mutated, aliased=out.aliased, shares=out.shares, output=out.output,
            duration_ms=out.duration_ms)


@dataclass
class FakePool:
    worker: InProcessWorker | BaseException
    sandbox: str = "none"
    opened: list[dict[str, Any]] = field(default_factory=list)

    @contextmanager
    def session(self, code: str, limits: Limits, *, seed: int = 0, modules: dict[str, str] | None = None,
                banned_calls: Sequence[str] = (), cancel: Any = None, on_call: Any = None) -> Iterator[InProcessWorker]:
        self.opened.append({"code": code, "limits": limits, "seed": seed, "modules": modules,
                            "banned_calls": tuple(banned_calls), "cancel": cancel, "on_call": on_call})
        if isinstance(self.worker, BaseException):
            raise self.worker
        yield self.worker


@dataclass
class Diagnoser:
    diagnosis: str | None = "you added x twice"
    error: Exception | None = None
    seen: list[CallResult] = field(default_factory=list)

    def diagnose(self, call: CallResult) -> str | None:
        self.seen.append(call)
        if self.error is not None:
            raise self.error
        return self.diagnosis


def make_check(function: Callable[..., None], *, id: str = "core.one", title: str = "One",
               required: bool = True, wants_context: bool = False) -> Check:
    return Check(id=id, title=title, group=id.split(".")[0], required=required, function=function,
                 wants_context=wants_context)


def make_problem(*checks: Check, helpers: str = "", banned: Sequence[str] = (), diagnoser: Any = None,
                 limits: Limits = LIMITS, add_returns: str | None = None,
                 add_contract: dict[str, Any] | None = None) -> Problem:
    """`add_returns`: the result kind add's contract declares ("float", ...); `add_contract`: all of it; by default
    add declares none."""
    if add_returns is not None:
        add_contract = {"args": {"x": {"kind": "float"}, "y": {"kind": "float"}}, "result": {"kind": add_returns}}
    contract = None if add_contract is None else FunctionContract.model_validate(add_contract)
    spec = ProblemSpec(slug="adder", title="Adder", summary="Adds.", difficulty="easy",
                       functions=[FunctionSpec(name="add", signature="add(x, y)", contract=contract),
                                  FunctionSpec(name="scale", signature="scale(x, factor)")],
                       required_groups=["core"], limits=limits, banned_calls=list(banned))
    reference = types.ModuleType("reference")
    reference.add = lambda x, y: x + y  # type: ignore[attr-defined]
    return Problem(spec=spec, folder=Path("."), statement="", starter="", notes="", reference=reference,
                   checks=checks, parameter_names=dict(PARAMETERS), helpers=helpers, diagnoser=diagnoser)


def adds(x: Any, y: Any) -> Any:
    return x + y


def run_one(check: Callable[..., None], *, functions: dict[str, Callable[..., Any]] | None = None,
            worker: InProcessWorker | None = None, **problem: Any) -> tuple[CheckResult, InProcessWorker]:
    worker = worker or InProcessWorker(functions=functions if functions is not None else {"add": adds})
    report = grade(make_problem(make_check(check), **problem), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    (result,) = report.checks
    return result, worker


def runner(worker: InProcessWorker | None = None, **problem: Any) -> CheckRunner:
    worker = worker or InProcessWorker(functions={"add": adds, "scale": lambda x, factor: x * factor})
    return CheckRunner(problem=make_problem(**problem), session=worker, functions=("add", "scale"))


def add_of(run: CheckRunner) -> RemoteFunction:
    return RemoteFunction("add", PARAMETERS["add"], run)


# --------------------------------------------------------------------------------------- a check's verdict


def passes(sub: Any, ref: Any) -> None:
    assert sub.add(1, 2) == ref.add(1, 2)


def fails(sub: Any, ref: Any) -> None:
    raise CheckFailed("add(1, 2) gave 4, expected 3")


def loses_the_worker(sub: Any, ref: Any) -> None:
    raise WorkerLost("add(1, 2) did not return within 2 s", limit="time")


def crashes(sub: Any, ref: Any) -> None:
    raise KeyError("oops")


def fails_long(sub: Any, ref: Any) -> None:
    raise CheckFailed("x" * (MAX_MESSAGE_CHARS + 10))


VERDICTS = [
    pytest.param(passes, "passed", "", None, id="passed"),
    pytest.param(fails, "failed", "add(1, 2) gave 4, expected 3", None, id="failed"),
    pytest.param(loses_the_worker, "failed", "add(1, 2) did not return within 2 s", "time", id="worker-lost"),
    pytest.param(crashes, "error", "this check itself crashed (KeyError: 'oops'); that is a bug in the problem's "
                 "checks, not in your code", None, id="check-crashed"),
    pytest.param(fails_long, "failed", cap_text("x" * (MAX_MESSAGE_CHARS + 10)), None, id="message-capped"),
]


@pytest.mark.parametrize(("check", "status", "message", "limit"), VERDICTS)
def test_a_check_ends_in_exactly_one_verdict(check: Callable[..., None], status: str, message: str,
                                             limit: str | None) -> None:
    result, _ = run_one(check)
    assert (result.status, result.message, result.limit, result.diagnosis) == (status, message, limit, None)
    assert (result.id, result.title, result.group, result.required) == ("core.one", "One", "core", True)


def test_a_crashing_check_is_logged_as_the_graders_bug(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="grader.judge"):
        run_one(crashes)
    assert [record.getMessage() for record in caplog.records] == ["check core.one crashed"]


def adds_one(sub: Any, ref: Any) -> None:
    sub.add(1, 2) + 1


def grade_two(first: Callable[..., None], second: Callable[..., None], add: Callable[..., Any],
              **problem: Any) -> list[CheckResult]:
    checks = (make_check(first, id="core.one"), make_check(second, id="core.two"))
    worker = InProcessWorker(functions={"add": add})
    return grade(make_problem(*checks, **problem), "code", pool=FakePool(worker)).checks  # type: ignore[arg-type]


def test_a_check_that_cannot_go_on_with_a_result_of_another_kind_than_declared_fails_naming_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="grader.judge"):
        result, _ = run_one(adds_one, functions={"add": lambda x, y: None}, add_returns="float")
    assert (result.status, result.message) == (
        "failed", "add(x=1, y=2) returned None, where the contract says a float; this check cannot go on with that "
        "(TypeError: unsupported operand type(s) for +: 'NoneType' and 'int')")
    assert caplog.records == []  # the learner's to fix, not the grader's bug


@pytest.mark.parametrize(("add", "add_returns"), [
    pytest.param(lambda x, y: 3.0, "float", id="a result of the declared kind"),
    pytest.param(lambda x, y: None, None, id="no contract declared"),
    pytest.param(lambda x, y: None, "none", id="None where None is declared"),
])
def test_a_check_that_crashes_on_a_result_of_the_declared_kind_is_the_graders_bug(
    add: Callable[..., Any], add_returns: str | None,
) -> None:
    def crashes_after(sub: Any, ref: Any) -> None:
        sub.add(1, 2)
        raise KeyError("oops")

    result, _ = run_one(crashes_after, functions={"add": add}, add_returns=add_returns)
    assert (result.status, result.message) == (
        "error", "this check itself crashed (KeyError: 'oops'); that is a bug in the problem's checks, not in your "
        "code")


def test_a_call_that_raised_has_no_result_to_name() -> None:
    def reads_the_value(sub: Any, ref: Any) -> None:
        sub.add.call(1, 2).value + 1

    result, _ = run_one(reads_the_value, functions={"add": lambda x, y: 1 / 0}, add_returns="float")
    assert result.status == "error"


def test_a_result_of_another_kind_is_named_only_in_the_check_that_called_for_it() -> None:
    def tolerates(sub: Any, ref: Any) -> None:
        sub.add.call(1, 2)

    def crashes(sub: Any, ref: Any) -> None:
        raise KeyError("oops")

    checks = grade_two(tolerates, crashes, lambda x, y: None, add_returns="float")
    assert [check.status for check in checks] == ["passed", "error"]


@pytest.mark.parametrize("helper", ["run", "add"], ids=["its own name", "the name of a function it drives"])
def test_a_helpers_result_is_not_held_to_the_contract_of_the_functions_it_drives(helper: str) -> None:
    def drives(sub: Any, ref: Any) -> None:
        sub.from_helpers(helper, uses=("add",))(1, 2) + 1

    def returns_none(functions: dict[str, Any], x: Any, y: Any) -> None:
        return None

    worker = InProcessWorker(helpers={helper: returns_none})
    helpers = types.ModuleType("helpers")
    setattr(helpers, helper, returns_none)
    problem = dataclasses.replace(make_problem(make_check(drives), add_returns="float"), helpers_module=helpers)
    (result,) = grade(problem, "code", pool=FakePool(worker)).checks  # type: ignore[arg-type]
    assert (result.status, result.message) == ("error", "this check itself crashed (TypeError: unsupported operand "
                                                        "type(s) for +: 'NoneType' and 'int'); that is a bug in the "
                                                        "problem's checks, not in your code")


def test_a_check_with_a_context_that_cannot_go_on_with_a_result_of_another_kind_fails_too() -> None:
    def experiment(sub: Any, ref: Any, context: CheckContext) -> None:
        sub.add(1, 2) + 1

    worker = InProcessWorker(functions={"add": lambda x, y: None})
    problem = make_problem(make_check(experiment, wants_context=True), add_returns="float")
    (result,) = grade(problem, "code", pool=FakePool(worker)).checks  # type: ignore[arg-type]
    assert result.status == "failed" and result.message.startswith("add(x=1, y=2) returned None")


ADD_VECTORS = {
    "dims": {"N": {}},
    "args": {"x": {"kind": "tensor", "shape": ["N"]}, "y": {"kind": "tensor", "shape": ["N"]}},
    "result": {"kind": "tensor", "shape": ["N"], "dtype": "x"},
}


def test_a_check_that_cannot_go_on_with_a_result_of_another_shape_fails_and_names_it() -> None:
    def subtracts(sub: Any, ref: Any) -> None:
        x = torch.zeros(3)
        sub.add(x, x) - x

    worker = InProcessWorker(functions={"add": lambda x, y: (x + y)[:2]})
    result, _ = run_one(subtracts, worker=worker, add_contract=ADD_VECTORS)
    assert result.status == "failed"
    assert result.message.startswith("add(x=float32[3] [0, 0, 0], y=float32[3] [0, 0, 0]) returned a tensor "
                                     "float32[2] [0, 0], where the contract says float32[3] for these arguments; "
                                     "this check cannot go on with that (RuntimeError: The size of tensor a (2)")


@pytest.mark.parametrize(("changed", "grads", "error"), [
    (("0",), {"x": None, "y": [1.0]}, "your code changed x (its values, shape, version, requires_grad or "
     "hooks), so no gradient that reaches it is measured; leave every argument as it was"),
    (("0", "1"), {"x": None, "y": None}, "your code changed x, y (its values, shape, version, requires_grad or "
     "hooks), so no gradient that reaches it is measured; leave every argument as it was"),
    ((), {"x": [7.0], "y": [1.0]}, None),
], ids=["one changed", "both changed", "none changed"])
def test_no_gradient_of_an_argument_the_call_changed_is_read(changed: tuple[str, ...], grads: dict[str, Any],
                                                             error: str | None) -> None:
    # what a hook the learner's code registered on x would make the worker's backward measure
    forged = Scripted(value=2.0, grads={"0": torch.full((1,), 7.0), "1": torch.ones(1)}, mutated=changed)
    worker = InProcessWorker(functions={"add": lambda x, y: forged})
    result = RemoteSubmission(runner(worker)).add.call(torch.zeros(1), torch.zeros(1), grads=("x", "y"))
    assert result.mutated == tuple({"0": "x", "1": "y"}[key] for key in changed)
    assert {name: None if g is None else g.tolist() for name, g in result.grads.items()} == grads
    assert result.backward_error == error


def test_a_check_that_crashes_with_every_result_as_declared_is_still_the_checks_bug() -> None:
    def crashes(sub: Any, ref: Any) -> None:
        x = torch.zeros(3)
        sub.add(x, x) - torch.zeros(4)

    result, _ = run_one(crashes, worker=InProcessWorker(functions={"add": adds}), add_contract=ADD_VECTORS)
    assert result.status == "error" and "bug in the problem's checks" in result.message


def test_a_call_named_with_keywords_is_compared_with_its_contract() -> None:
    sub = RemoteSubmission(runner(InProcessWorker(functions={"add": lambda x, y: x.sum()}),
                                  add_contract=ADD_VECTORS))
    sub.add.call(torch.zeros(2), y=torch.zeros(2))
    assert first_mismatch(sub.add.seen) == ("add(x=float32[2] [0, 0], y=float32[2] [0, 0]) returned a tensor "
                                            "float32[] 0, where the contract says float32[2] for these arguments")


def test_a_comparison_that_fails_is_logged_and_the_next_call_is_compared(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    real = contract_mismatch

    def fails_on_the_first(value: Any, contract: Any, args: Any) -> str | None:
        if args["x"].shape == (1,):
            raise ValueError("cannot compare")
        return real(value, contract, args)

    monkeypatch.setattr(judge, "contract_mismatch", fails_on_the_first)
    sub = RemoteSubmission(runner(InProcessWorker(functions={"add": lambda x, y: x.sum()}),
                                  add_contract=ADD_VECTORS))
    sub.add.map([((torch.zeros(1), torch.zeros(1)), {}), ((torch.zeros(2), torch.zeros(2)), {})])
    with caplog.at_level(logging.ERROR, logger="grader.judge"):
        named = first_mismatch(sub.add.seen)
    assert named is not None and named.startswith("add(x=float32[2] [0, 0], y=float32[2] [0, 0]) returned")
    assert [(record.getMessage(), record.exc_info is not None) for record in caplog.records] == [
        ("comparing a result of add with its contract failed", True)]


def test_a_check_names_the_first_result_the_contract_does_not_allow() -> None:
    sub = RemoteSubmission(runner(InProcessWorker(functions={"add": lambda x, y: x.sum()}),
                                  add_contract=ADD_VECTORS))
    sub.add.map([((torch.zeros(2), torch.zeros(2)), {}), ((torch.zeros(3), torch.zeros(3)), {})])
    assert first_mismatch(sub.add.seen) == ("add(x=float32[2] [0, 0], y=float32[2] [0, 0]) returned a tensor "
                                            "float32[] 0, where the contract says float32[2] for these arguments")


def seen_call(value: Any) -> Seen:
    contract = FunctionContract.model_validate(ADD_VECTORS)
    return Seen(contract, {}, CallResult(function="add", call="add()", value=value))


def test_a_check_keeps_its_latest_calls_only() -> None:
    seen = SeenCalls()
    for index in range(MAX_SEEN + 5):
        seen.add(seen_call(index))
    assert [entry.result.value for entry in seen] == list(range(5, MAX_SEEN + 5))


def kept_after(*eighths: int) -> list[int]:
    """The calls a check keeps after calls whose results take these eighths of MAX_SEEN_BYTES, by position."""
    seen = SeenCalls()
    for index, size in enumerate(eighths):
        seen.add(seen_call((index, torch.empty(size * MAX_SEEN_BYTES // 8, dtype=torch.uint8))))
    return [entry.result.value[0] for entry in seen]


@pytest.mark.parametrize(("eighths", "kept"), [
    ((4, 4), [0, 1]),  # exactly the bound: both kept
    ((4, 5), [1]),
    ((4, 6, 3, 1), [2, 3]),  # the bytes of what was dropped are no longer counted
])
def test_a_check_keeps_the_latest_results_that_fit_in_its_bound(eighths: tuple[int, ...], kept: list[int]) -> None:
    assert kept_after(*eighths) == kept


def test_a_check_keeps_a_bounded_size_of_results_and_always_the_latest() -> None:
    seen = SeenCalls()
    large = MAX_SEEN_BYTES // 4 * 3 // 4  # float32: three quarters of the bound a tensor
    for index in range(3):
        seen.add(seen_call((index, torch.empty(large))))
    assert [entry.result.value[0] for entry in seen] == [2]
    seen.add(seen_call((3, torch.empty(2 * large))))
    assert [entry.result.value[0] for entry in seen] == [3]


def test_the_functions_of_one_submission_share_what_they_saw() -> None:
    sub = RemoteSubmission(runner(InProcessWorker(functions={"add": lambda x, y: None}), add_returns="float"))
    sub.add.call(1, 2)
    assert first_mismatch(sub.add.seen) == "add(x=1, y=2) returned None, where the contract says a float"


def test_a_check_that_wants_a_context_gets_one_and_can_record_an_experiment() -> None:
    def experiment(sub: Any, ref: Any, context: CheckContext) -> None:
        assert sub.add(1, 2) == ref.add(1, 2)
        context.record_experiment(steps=[0, 1, 2.0], series={"loss": [1, float("nan"), 0.5]})  # type: ignore[list-item]

    check = make_check(experiment, wants_context=True)
    report = grade(make_problem(check), "code", pool=FakePool(InProcessWorker()))  # type: ignore[arg-type]
    assert report.checks[0].status == "passed"
    assert report.experiment is not None
    assert (report.experiment.steps, report.experiment.series) == ([0, 1, 2], {"loss": [1.0, None, 0.5]})
    assert all(type(step) is int for step in report.experiment.steps)


def test_a_series_must_have_a_value_per_step() -> None:
    with pytest.raises(ValueError, match="^series 'loss' has 1 values for 2 steps$"):
        CheckContext().record_experiment(steps=[0, 1], series={"loss": [1.0]})


def test_a_grading_records_one_experiment() -> None:
    context = CheckContext()
    context.record_experiment(steps=[0], series={"loss": [1.0]})
    with pytest.raises(ValueError, match="^a grading records one experiment; record every series in one"):
        context.record_experiment(steps=[0], series={"accuracy": [0.5]})
    assert context.experiment is not None and list(context.experiment.series) == ["loss"]


@pytest.mark.parametrize("name", ["reward_beta_0.04", "loss curve", "", "x" * 65, "naïve"])
def test_a_series_name_the_notes_cannot_place_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="must be 1 to 64 letters, digits, '_' or '-'$"):
        CheckContext().record_experiment(steps=[0], series={name: [1.0]})


@pytest.mark.parametrize("name", ["loss", "reward_beta-small", "x" * 64, "A9"])
def test_a_series_name_of_letters_digits_underscores_and_dashes_is_kept(name: str) -> None:
    context = CheckContext()
    context.record_experiment(steps=[0], series={name: [1.0]})
    assert context.experiment is not None and list(context.experiment.series) == [name]


def test_a_check_without_a_context_gets_exactly_two_arguments() -> None:
    seen: list[int] = []
    run_one(lambda *args: seen.append(len(args)))
    assert seen == [2]


def test_a_check_sees_the_problems_reference() -> None:
    seen: list[Any] = []
    run_one(lambda sub, ref: seen.append(ref.add(2, 3)))
    assert seen == [5]


# ------------------------------------------------------------------------------------------- diagnoses


def fails_on_a_call(sub: Any, ref: Any) -> None:
    result = sub.add.call(1, 1)
    raise CheckFailed("add(1, 1) gave 2, expected 3. Check the sum.", call=result, bare="add(1, 1) gave 2, expected 3")


GENERIC = "add(1, 1) gave 2, expected 3. Check the sum."


@pytest.mark.parametrize(("make", "message", "diagnosis"), [
    pytest.param(lambda: Diagnoser(), "add(1, 1) gave 2, expected 3. you added x twice", "you added x twice",
                 id="diagnosed"),
    pytest.param(lambda: Diagnoser(diagnosis=None), GENERIC, None, id="no-diagnosis"),
    pytest.param(lambda: Diagnoser(diagnosis=""), GENERIC, None, id="empty-diagnosis"),
    pytest.param(lambda: Diagnoser(error=RuntimeError("bug")), GENERIC, None,
                 id="diagnoser-crashed"),
    pytest.param(lambda: None, GENERIC, None, id="no-diagnoser"),
])
def test_a_known_mistake_replaces_the_generic_hint(make: Callable[[], Diagnoser | None], message: str,
                                                   diagnosis: str | None) -> None:
    diagnoser = make()  # a fresh one per run: it records what it saw
    result, _ = run_one(fails_on_a_call, diagnoser=diagnoser)
    assert (result.status, result.message, result.diagnosis) == ("failed", message, diagnosis)
    if diagnoser is not None:
        (call,) = diagnoser.seen
        assert (call.function, call.value, call.arguments) == ("add", 2, ((1, 1), {}))


def test_a_failure_without_a_call_is_not_diagnosed() -> None:
    diagnoser = Diagnoser()
    result, _ = run_one(fails, diagnoser=diagnoser)
    assert (result.message, result.diagnosis, diagnoser.seen) == ("add(1, 2) gave 4, expected 3", None, [])


def test_a_crashing_diagnosis_is_logged_and_the_verdict_stands(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="grader.judge"):
        result, _ = run_one(fails_on_a_call, diagnoser=Diagnoser(error=RuntimeError("bug")))
    assert result.status == "failed"
    assert [(r.getMessage(), r.exc_info and r.exc_info[0]) for r in caplog.records] == [
        ("diagnosing add failed", RuntimeError)]


# ----------------------------------------------------------------------------------- what a call carries


def test_a_call_carries_the_value_and_what_was_passed() -> None:
    run = runner()
    x = torch.tensor([1.0, 2.0])
    (result,) = add_of(run).map([((x,), {"y": 3.0})])
    assert torch.equal(result.value, torch.tensor([4.0, 5.0]))
    assert (result.function, result.raised, result.grads, result.mutated, result.aliased) == ("add", None, {}, (),
                                                                                              ())
    assert result.arguments is not None and result.arguments[0][0] is x and result.arguments[1] == {"y": 3.0}
    assert result.call == describe_call("add", ("x", "y"), (x,), {"y": 3.0})
    tree, blobs = result.encoded  # type: ignore[misc]
    assert tree == run.session.requests[0]["calls"][0].arguments  # type: ignore[attr-defined]
    assert blobs == [x.numpy().tobytes()]


def test_each_call_gets_bytes_of_its_own_and_keeps_only_its_own() -> None:
    run = runner()
    x, y = torch.ones(2), torch.zeros(3)
    first, second = add_of(run).map([((x, x), {}), ((x, 1.0), {"y": y})])
    (request,) = run.session.requests  # type: ignore[attr-defined]
    assert len(request["blobs"]) == 3  # x once for the first call; x and y again for the second
    assert first.encoded[1] == [x.numpy().tobytes()]  # type: ignore[index]
    assert second.encoded[1] == [x.numpy().tobytes(), y.numpy().tobytes()]  # type: ignore[index]


def writes_to(*names: str) -> Callable[..., Any]:
    def function(x: torch.Tensor, y: Any = None, **kwargs: Any) -> Any:
        arguments = {"x": x, "y": y, **kwargs}
        for name in names:
            arguments[name].add_(1)
        return 0

    return function


@pytest.mark.parametrize(("written", "reported", "mutated"), [
    pytest.param((), (), (), id="nothing"),
    pytest.param(("x",), (), ("x",), id="seen-in-the-arena"),
    pytest.param((), ("1",), ("y",), id="reported-by-the-worker"),
    pytest.param(("y",), ("1",), ("y",), id="both-once"),
    pytest.param(("z",), ("1", "0", "4", "10"), ("x", "y", "arg4", "arg10", "z"), id="ordered-by-argument"),
])
def test_an_argument_written_in_place_is_named_once_in_argument_order(written: tuple[str, ...],
                                                                      reported: tuple[str, ...],
                                                                      mutated: tuple[str, ...]) -> None:
    write = writes_to(*written)

    def function(*args: Any, **kwargs: Any) -> Scripted:
        write(*args[:2], **kwargs)
        return Scripted(value=0, mutated=reported)

    run = runner(InProcessWorker(functions={"add": function}))
    (result,) = add_of(run).map([((torch.zeros(1), torch.zeros(1)), {"z": torch.zeros(1)})])
    assert result.mutated == mutated


def test_a_write_is_blamed_on_the_call_whose_argument_it_was() -> None:
    calls: Iterator[Callable[[Any, Any], Any]] = iter([lambda x, y: 0, lambda x, y: x.add_(1) and 0])
    run = runner(InProcessWorker(functions={"add": lambda x, y: next(calls)(x, y)}))
    shared = torch.zeros(2)
    first, second = add_of(run).map([((shared, 1), {}), ((shared, 2), {})])
    assert (first.mutated, second.mutated) == ((), ("x",))


def test_a_call_carries_every_field_of_its_reply() -> None:
    reply = Scripted(value=1.5, grads={"0": torch.ones(2), "y": None}, aliased=("0", "y"), output="printed",
                     duration_ms=12.5, backward_error="e" * 3000)
    run = runner(InProcessWorker(functions={"add": lambda x, y: reply}))
    (result,) = add_of(run).map([((torch.zeros(2),), {"y": 1})])
    assert result.value == 1.5
    assert set(result.grads) == {"x", "y"} and torch.equal(result.grads["x"], torch.ones(2))
    assert result.grads["y"] is None
    assert (result.aliased, result.output, result.duration_ms) == (("x", "y"), "printed", 12.5)
    assert result.backward_error == "e" * 2000
    assert run.take_output() == "printed"


@pytest.mark.parametrize(("keep", "sent"), [(True, [True, True]), (False, [False, False])])
def test_a_map_asks_the_worker_to_keep_its_results_only_when_told(keep: bool, sent: list[bool]) -> None:
    run = runner()
    add_of(run).map([((1, 2), {}), ((3, 4), {})], keep=keep)
    add_of(run).call(5, 6)
    assert [[call.keep for call in r["calls"]] for r in run.session.requests] == [  # type: ignore[attr-defined]
        sent, [False]]


def test_a_kept_call_carries_the_earlier_calls_its_result_shares_memory_with() -> None:
    replies = iter([Scripted(value=0), Scripted(value=1, shares=(0,)), Scripted(value=2, shares=(0, 1))])
    run = runner(InProcessWorker(functions={"add": lambda x, y: next(replies)}))
    results = add_of(run).map([((1, 2), {})] * 3, keep=True)
    assert [result.shares for result in results] == [(), (0,), (0, 1)]


@pytest.mark.parametrize(("shares", "keep", "why"), [
    pytest.param(((0,), ()), True, "shares names calls [0] for call 0 of the request", id="a call sharing with itself"),
    pytest.param(((), (1, 0)), True, "shares names calls [1, 0] for call 1 of the request",
                 id="a call sharing with itself and an earlier one"),
    pytest.param(((), (0,)), False, "shares names calls [0] for call 1 of the request",
                 id="sharing reported where nothing was kept"),
])
def test_a_reply_naming_shares_it_cannot_have_loses_the_worker(shares: tuple[tuple[int, ...], ...], keep: bool,
                                                               why: str) -> None:
    reply = answer(CallsReply(tuple(CallOutcome(value=0, shares=named) for named in shares)))
    run = runner(InProcessWorker(answers=[reply]))
    with pytest.raises(WorkerLost) as lost:
        add_of(run).map([((1, 2), {})] * 2, keep=keep)
    assert lost.value.reason == f"the worker sent a malformed message during 2 calls of add, e.g. add(x=1, y=2) ({why})"


def test_an_empty_backward_error_is_none() -> None:
    run = runner(InProcessWorker(functions={"add": lambda x, y: Scripted(value=0, backward_error="")}))
    assert add_of(run).call(1, 2).backward_error is None


def test_a_call_that_raised_has_no_value() -> None:
    run = runner(InProcessWorker(functions={"add": lambda x, y: Scripted(value=5, raised=exception("ValueError"))}))
    result = add_of(run).call(1, 2)
    assert (result.value, result.raised) == (None, exception("ValueError"))


def test_a_function_the_worker_does_not_find_fails_the_check() -> None:
    run = runner(InProcessWorker(functions={"add": lambda x, y: Scripted(missing=True)}))
    with pytest.raises(CheckFailed, match="^your code defines no function add$"):
        add_of(run).call(1, 2)


@pytest.mark.parametrize(("function", "message"), [
    pytest.param("scale", "your code defines no function scale (expected scale(x, factor))", id="declared"),
    pytest.param("other", "your code defines no function other (expected other)", id="undeclared"),
])
def test_a_function_the_submission_does_not_define_is_not_called(function: str, message: str) -> None:
    worker = InProcessWorker()
    run = CheckRunner(problem=make_problem(), session=worker, functions=("add",))
    with pytest.raises(CheckFailed, match=f"^{message.replace('(', r'[(]').replace(')', r'[)]')}$"):
        RemoteFunction(function, ("x",), run).call(1)
    assert worker.requests == []


# ---------------------------------------------------------------------------------------------- gradients


def test_gradients_are_asked_for_by_argument_key_with_the_checks_cotangent() -> None:
    seen: list[Any] = []

    def function(x: Any, y: Any, grad_output: Any = None) -> Scripted:
        seen.append(grad_output)
        return Scripted(value=0)

    run = runner(InProcessWorker(functions={"add": function}))
    add_of(run).call(1.0, y=2.0, grads=("x", "y"), grad_output=torch.ones(1))
    add_of(run).map([((1.0,), {"y": 2.0}), ((1.0, 2.0), {})], grads=("y",))
    first, second = run.session.requests  # type: ignore[attr-defined]
    assert [call.grads for call in first["calls"]] == [("0", "y")]
    assert [call.grads for call in second["calls"]] == [("y",), ("1",)]
    assert [call.grad_output for call in second["calls"]] == [None, None]
    assert torch.equal(seen[0], torch.ones(1)) and seen[1:] == [None, None]


RESULT = torch.arange(6.0, dtype=torch.float64).reshape(2, 3)


def made(index: int) -> torch.Tensor:
    """The default cotangent of a float64 [2, 3] result tensor, the index-th of its result (its bytes are
    specified in tests/grader/test_cotangent_spec.py)."""
    return torch.frombuffer(bytearray(default_cotangent_bytes("float64", 6, index)), dtype=torch.float64).reshape(2, 3)


SEEDED = made(0)


@pytest.mark.parametrize(("value", "drawn"), [
    (RESULT, SEEDED),
    (torch.tensor(2.5), torch.tensor(1.0)),  # one element: ones
    ((torch.tensor([1, 2]), RESULT), (torch.zeros(2, dtype=torch.int64), made(1))),
    ([RESULT], (SEEDED,)),
    ("no tensor", None),
], ids=["seeded", "one-element", "integer-then-float", "list", "no-tensor"])
@pytest.mark.parametrize("reported", [True, False], ids=["reported", "not-reported"])
def test_a_gradient_call_without_a_cotangent_carries_the_one_the_grader_draws(value: Any, drawn: Any,
                                                                               reported: bool) -> None:
    reply = Scripted(value=value, grad_output=drawn if reported else None)
    result = add_of(runner(InProcessWorker(functions={"add": lambda x, y: reply}))).call(1, 2, grads=("x",))
    if drawn is None:
        assert result.grad_output is None
    else:
        assert same_cotangent(result.grad_output, drawn)


@pytest.mark.parametrize("forged", [
    torch.zeros(2, 3, dtype=torch.float64),
    SEEDED.float(),
    SEEDED[:1],
    (SEEDED,),
    SEEDED + 1e-12,
], ids=["zeros", "another-dtype", "another-shape", "a-tuple-for-a-tensor", "one-ulp-off"])
def test_a_cotangent_the_grader_did_not_draw_loses_the_worker(forged: Any) -> None:
    run = runner(InProcessWorker(functions={"add": lambda x, y: Scripted(value=RESULT, grad_output=forged)}))
    with pytest.raises(WorkerLost) as lost:
        add_of(run).call(1, 2, grads=("x",))
    assert (lost.value.reason, lost.value.limit) == (
        "your code changed torch for the grader too during add(x=1, y=2): its gradient came back computed with "
        "a cotangent that is not the cotangent the grader draws; submissions may not register kernels or leave "
        "modes or hooks on the grader's tensors", "tampering")


@pytest.mark.parametrize(("grads", "given"), [((), None), (("x",), torch.ones(2, 3, dtype=torch.float64))],
                         ids=["no-gradients", "the-checks-cotangent"])
def test_a_call_that_drew_no_cotangent_carries_none_and_may_report_none(grads: tuple[str, ...], given: Any) -> None:
    quiet = runner(InProcessWorker(functions={"add": lambda x, y, grad_output=None: Scripted(value=RESULT)}))
    assert add_of(quiet).call(1, 2, grads=grads, grad_output=given).grad_output is None
    loud = runner(InProcessWorker(functions={"add": lambda x, y, grad_output=None: Scripted(value=RESULT,
                                                                                          grad_output=SEEDED)}))
    with pytest.raises(WorkerLost, match="not the cotangent the grader draws"):
        add_of(loud).call(1, 2, grads=grads, grad_output=given)


def test_a_gradient_for_a_name_that_is_not_an_argument_is_a_check_bug() -> None:
    with pytest.raises(ValueError, match="^check bug: 'z' is not an argument of this call of add$"):
        add_of(runner()).call(1.0, 2.0, grads=("z",))
    with pytest.raises(ValueError, match="^check bug: 'y' is not an argument of this call of add$"):
        add_of(runner()).call(1.0, grads=("y",))


def test_one_cotangent_per_call_or_it_is_a_check_bug() -> None:
    with pytest.raises(ValueError, match="^check bug: 1 grad_outputs for 2 calls$"):
        add_of(runner()).map([((1, 2), {}), ((3, 4), {})], grad_outputs=[1.0])


@pytest.mark.parametrize(("key", "name"), [("0", "x"), ("1", "y"), ("2", "arg2"), ("y", "y"), ("grad", "grad")])
def test_an_argument_key_names_its_parameter(key: str, name: str) -> None:
    assert add_of(runner()).name_of(key) == name


# ---------------------------------------------------------------------------------------------- caps


def nest(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


CANNED = Answer(CallsReply((CallOutcome(value=0),)), [])


@pytest.mark.parametrize("how", ["positional", "keyword"])
def test_an_argument_may_nest_as_deep_as_the_worker_decodes_it_and_no_deeper(how: str) -> None:
    """The worker decodes a call's arguments inside ((args...), {kwargs}): two levels above each argument."""
    def call(value: Any, worker: InProcessWorker) -> CallResult:
        run = runner(worker)
        return add_of(run).call(value, 0) if how == "positional" else add_of(run).call(0, y=value)

    assert call(nest(MAX_DEPTH - 2), InProcessWorker(functions={"add": lambda x, y: 0})).value == 0  # decoded
    worker = InProcessWorker(answers=[CANNED])  # decodes nothing: only the judge can refuse
    with pytest.raises(ProtocolError, match="too deeply nested"):
        call(nest(MAX_DEPTH - 1), worker)
    assert worker.requests == []


def test_a_cotangent_may_nest_as_deep_as_the_worker_decodes_it_and_no_deeper() -> None:
    add_of(runner(InProcessWorker(answers=[CANNED]))).call(1, 2, grads=("x",), grad_output=nest(MAX_DEPTH - 1))
    with pytest.raises(ProtocolError, match="too deeply nested"):
        add_of(runner(InProcessWorker(answers=[CANNED]))).call(1, 2, grads=("x",), grad_output=nest(MAX_DEPTH))


def test_a_calls_arguments_may_hold_exactly_the_item_cap_as_the_worker_counts_it() -> None:
    """The worker decodes ((args...), {kwargs}) as one value: its three containers count as items too. What the
    judge sends, the worker can decode; what it could not, the judge refuses before sending (a check's bug,
    never the learner's lost worker)."""
    fits = [0] * (MAX_ITEMS - 4)  # the list, its items and the three containers: exactly MAX_ITEMS
    worker = InProcessWorker(functions={"add": lambda x, y=None: len(x)})
    assert add_of(runner(worker)).call(fits).value == MAX_ITEMS - 4  # decoded by the worker's Decoder
    worker = InProcessWorker(functions={"add": lambda x, y=None: len(x)})
    with pytest.raises(ProtocolError, match="too large"):
        add_of(runner(worker)).call(fits + [0])
    assert worker.requests == []


@pytest.mark.parametrize("reply", [
    pytest.param(CallOutcome(value={"list": [0] * (MAX_ITEMS - 1)}, grads={"0": None}), id="absent-gradient"),
    pytest.param(CallOutcome(value={"list": [0] * (MAX_ITEMS - 1)}, grad_output=None), id="absent-cotangent"),
])
def test_a_reply_may_hold_exactly_the_item_cap_whatever_is_absent(reply: CallOutcome) -> None:
    run = runner(InProcessWorker(answers=[Answer(CallsReply((reply,)), [])]))
    assert len(add_of(run).call(1, 2).value) == MAX_ITEMS - 1


# ------------------------------------------------------------------------------------ the worker's failures


def exception(kind: str, message: str = "boom", ancestry: tuple[str, ...] | None = None) -> ExceptionInfo:
    return ExceptionInfo(type=kind, ancestry=(kind, "Exception") if ancestry is None else ancestry, message=message)


def answer(message: Any, blobs: Sequence[bytes] = ()) -> Answer:
    return Answer(message, [bytearray(blob) for blob in blobs])


CORRUPT_VALUE = CallOutcome(value={"tensor": {"dtype": "float32", "shape": [4], "stride": [1], "offset": 0,
                                            "storage": 0}})
FAILURES = [
    pytest.param(answer(TooLarge(size=3 * 2**20 + 2**19)), 1,
                 "add(x=1, y=2) returned 3.5 MiB of tensors; the limit is 8 MiB", "message_size", id="too-large"),
    pytest.param(answer(TooLarge(size=3 * 2**20)), 2,
                 "2 calls of add, e.g. add(x=1, y=2) returned 3.0 MiB of tensors; the limit is 8 MiB", "message_size",
                 id="too-large-several"),
    pytest.param(answer(TimedOut()), 1, "the worker answered add(x=1, y=2) with a malformed reply", None,
                 id="not-results"),
    pytest.param(answer(CallsReply(())), 1, "the worker answered add(x=1, y=2) with a malformed reply", None,
                 id="too-few-results"),
    pytest.param(answer(CallsReply((CallOutcome(value=1),) * 3)), 2,
                 "the worker answered 2 calls of add, e.g. add(x=1, y=2) with a malformed reply", None,
                 id="too-many-results"),
    pytest.param(answer(CallsReply((CORRUPT_VALUE,)), [b"1234"]), 1,
                 "the worker sent a malformed message during add(x=1, y=2) (tensor view reaches outside its storage)",
                 None, id="forged-value"),
    pytest.param(answer(CallsReply((CallOutcome(grads={"0": {"bogus": 1}}),))), 1,
                 "the worker sent a malformed message during add(x=1, y=2) (unknown tag 'bogus')", None,
                 id="forged-gradient"),
    pytest.param(answer(CallsReply((CallOutcome(grad_output=2**70),))), 1,
                 "the worker sent a malformed message during add(x=1, y=2) (an integer beyond 64 bits)", None,
                 id="forged-cotangent"),
]


@pytest.mark.parametrize(("reply", "count", "message", "limit"), FAILURES)
def test_a_reply_the_judge_cannot_use_loses_the_worker(reply: Answer, count: int, message: str,
                                                      limit: str | None) -> None:
    run = runner(InProcessWorker(answers=[reply]))
    with pytest.raises(WorkerLost) as lost:
        add_of(run).map([((1, 2), {})] * count)
    assert (lost.value.reason, lost.value.limit) == (message, limit)


def test_a_request_has_the_call_limit_once_per_call_and_says_what_it_is() -> None:
    run = runner()
    add_of(run).map([((1, 2), {}), ((3, 4), {}), ((5, 6), {})])
    add_of(run).call(1, 2)
    assert [(r["timeout"], r["what"], r["function"]) for r in run.session.requests] == [  # type: ignore[attr-defined]
        (6.0, "3 calls of add, e.g. add(x=1, y=2)", "add"), (2.0, "add(x=1, y=2)", "add")]


# ------------------------------------------------------------------------------- exceptions and limits

MEMORY = "[memory limit 512 MiB reached]"


@pytest.mark.parametrize(("raised", "memory_mb", "expected"), [
    pytest.param(None, 512, exception("Exception", "", ()), id="none-is-a-bare-exception"),
    pytest.param(exception("ValueError"), 512, exception("ValueError"), id="not-memory"),
    pytest.param(exception("MemoryError"), None, exception("MemoryError"), id="no-limit-known"),
    pytest.param(exception("MemoryError"), 512, exception("MemoryError", f"boom {MEMORY}"), id="memory-error"),
    pytest.param(exception("MemoryError", ""), 512, exception("MemoryError", MEMORY), id="memory-error-no-message"),
    pytest.param(exception("RuntimeError", "can't allocate memory: 1 GB"), 512,
                 exception("RuntimeError", f"can't allocate memory: 1 GB {MEMORY}"), id="torch-out-of-memory"),
    pytest.param(exception("Sub", "x", ("Sub", "MemoryError", "Exception")), 512,
                 exception("Sub", f"x {MEMORY}", ("Sub", "MemoryError", "Exception")), id="subclass"),
])
def test_an_exception_says_which_memory_limit_it_ran_into(raised: ExceptionInfo | None, memory_mb: int | None,
                                                          expected: ExceptionInfo) -> None:
    assert exception_info(raised, memory_mb=memory_mb) == expected


def test_without_a_limit_an_exception_is_returned_as_it_came() -> None:
    raised = exception("MemoryError")
    assert exception_info(raised) is raised


@pytest.mark.parametrize(("raised", "notes", "message", "asked"), [
    pytest.param(exception("ValueError"), " [processes: 16]", "boom", 0, id="the-learners-answer"),
    pytest.param(exception("RuntimeError", "can't start new thread"), " [processes: 16 reached]",
                 "can't start new thread [processes: 16 reached]", 1, id="thread-limit"),
    pytest.param(exception("BlockingIOError", "fork", ("BlockingIOError", "OSError", "Exception")), " [pids]",
                 "fork [pids]", 1, id="fork-failed"),
    pytest.param(exception("RuntimeError", "x [pids]"), " [pids]", "x [pids]", 1, id="already-said"),
    pytest.param(exception("RuntimeError", "x pids"), " [pids]", "x pids", 1, id="already-said-without-brackets"),
    pytest.param(exception("RuntimeError", "limit"), " [Xlimit]", "limit [Xlimit]", 1, id="only-brackets-stripped"),
    pytest.param(exception("RuntimeError", "x"), "", "x", 1, id="no-notes"),
    pytest.param(exception("MemoryError", ""), " [memory.max reached]", f"{MEMORY} [memory.max reached]", 1,
                 id="memory-both"),
])
def test_a_resource_error_gets_the_limits_the_worker_ran_into(raised: ExceptionInfo, notes: str, message: str,
                                                              asked: int) -> None:
    worker = InProcessWorker(functions={"add": lambda x, y: Scripted(raised=dataclass_copy(raised))}, notes=notes)
    result = add_of(runner(worker)).call(1, 2)
    assert result.raised is not None
    assert (result.raised.type, result.raised.ancestry, result.raised.message) == (raised.type, raised.ancestry,
                                                                                   message)
    assert worker.notes_asked == asked


def dataclass_copy(info: ExceptionInfo) -> ExceptionInfo:
    return ExceptionInfo(type=info.type, ancestry=info.ancestry, message=info.message,
                         traceback=(TracebackLine(4, "add", "x"),))


def test_the_notes_keep_the_traceback() -> None:
    worker = InProcessWorker(functions={"add": lambda x, y: Scripted(raised=dataclass_copy(exception("OSError")))},
                             notes=" [n]")
    result = add_of(runner(worker)).call(1, 2)
    assert result.raised is not None and result.raised.traceback == (TracebackLine(4, "add", "x"),)


def test_calling_a_function_unwraps_its_value_or_its_exception() -> None:
    run = runner(InProcessWorker(functions={"add": adds, "scale": lambda x, factor: 1 / 0}))
    sub = RemoteSubmission(run)
    assert sub.add(2, y=3) == 5
    with pytest.raises(CheckFailed, match=r"^scale\(x=1, factor=0\) raised ZeroDivisionError: division by zero"):
        sub.scale(1, 0)


# ---------------------------------------------------------------------------------------------- submission


def test_a_submission_offers_exactly_the_problems_functions() -> None:
    sub = RemoteSubmission(runner())
    assert (sub.add.name, sub.add.parameters) == ("add", ("x", "y"))
    with pytest.raises(AttributeError, match="^check bug: 'sub' is not a function of problem adder$"):
        sub.sub  # noqa: B018
    with pytest.raises(AttributeError, match="^_private$"):
        sub._private  # noqa: B018


# ------------------------------------------------------------------------------------------------ output


@pytest.mark.parametrize(("printed", "kept"), [
    pytest.param(["a", "b"], "ab", id="joined"),
    pytest.param(["x" * 4000], "x" * 4000, id="exactly-the-cap"),
    pytest.param(["x" * 3999, "yz"], "x" * 3999 + "y\n[... output truncated]", id="over-the-cap"),
])
def test_a_checks_output_is_what_its_calls_printed_up_to_a_cap(printed: list[str], kept: str) -> None:
    outputs = iter(printed)
    run = runner(InProcessWorker(functions={"add": lambda x, y: Scripted(value=0, output=next(outputs))}))
    for _ in printed:
        add_of(run).call(1, 2)
    assert run.take_output() == kept
    assert run.take_output() == ""


@pytest.mark.parametrize(("loaded", "outputs"), [
    pytest.param("[load]", ["[load][a1][a2]", "[b1]"], id="printed"),
    pytest.param("", ["[a1][a2]", "[b1]"], id="silent"),
])
def test_what_loading_printed_goes_with_the_first_check_only(loaded: str, outputs: list[str]) -> None:
    def first(sub: Any, ref: Any) -> None:
        sub.add("a1", 0)
        sub.add("a2", 0)  # the second check finishes while this one waits for its second call

    def second(sub: Any, ref: Any) -> None:
        sub.add("b1", 0)

    worker = InProcessWorker(functions={"add": lambda x, y: Scripted(value=0, output=f"[{x}]")},
                             loaded=LoadResult(ok=True, functions=("add",), output=loaded))
    problem = make_problem(make_check(first, id="core.a"), make_check(second, id="core.b"))
    report = grade(problem, "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [check.output for check in report.checks] == outputs


def test_a_function_that_broke_a_limit_is_named_with_the_check_it_broke_in() -> None:
    worker = InProcessWorker(answers=[WorkerLost("add(x=1, y=2) ended the worker", limit="crash")])
    checks = (make_check(passes, id="core.a", title="Adds small numbers"), make_check(passes, id="core.b"))
    report = grade(make_problem(*checks), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [(check.message, check.limit) for check in report.checks] == [
        ("add(x=1, y=2) ended the worker", "crash"),
        ("not run: add ended the worker process in check ‘Adds small numbers’", "crash")]


# ---------------------------------------------------------------------------------------------- grading


def test_grading_hands_the_stop_token_and_the_call_watcher_to_the_session() -> None:
    pool = FakePool(InProcessWorker())
    token, watcher = CancelToken(), (lambda started: None)
    grade(make_problem(*three_checks()), "code", pool=pool, cancel=token, on_call=watcher)  # type: ignore[arg-type]
    assert pool.opened[0]["cancel"] is token and pool.opened[0]["on_call"] is watcher
    token.close()


def three_checks(second: Callable[..., None] = passes) -> tuple[Check, ...]:
    return (make_check(passes, id="core.a", title="A"), make_check(second, id="core.b", title="B"),
            make_check(passes, id="extra.c", title="C", required=False))


def test_grading_opens_a_session_with_the_problems_code_limits_helpers_and_bans() -> None:
    pool = FakePool(InProcessWorker())
    problem = make_problem(*three_checks(), helpers="H = 1", banned=("torch.load",))
    emitted: list[str] = []
    report = grade(problem, "the code", pool=pool, seed=7, on_check=lambda r: emitted.append(r.id))  # type: ignore[arg-type]
    assert pool.opened == [{"code": "the code", "limits": LIMITS, "seed": 7, "modules": {"helpers": "H = 1"},
                            "banned_calls": ("torch.load",), "cancel": None, "on_call": None}]
    assert emitted == ["core.a", "core.b", "extra.c"]
    assert [check.status for check in report.checks] == ["passed"] * 3
    assert (report.problem, report.solved, report.error, report.sandbox) == ("adder", True, None, "none")
    assert report.limits == LIMITS.as_report()
    assert report.duration_ms > 0


def test_a_problem_without_helpers_loads_no_modules() -> None:
    pool = FakePool(InProcessWorker())
    grade(make_problem(*three_checks()), "code", pool=pool)  # type: ignore[arg-type]
    assert pool.opened[0]["modules"] == {} and pool.opened[0]["seed"] == 0


def test_a_checks_time_is_its_calls_time_in_the_worker_plus_its_own_in_milliseconds() -> None:
    worker = InProcessWorker(functions={"add": lambda x, y: Scripted(value=3, duration_ms=100_000.0)})
    checks = [make_check(passes, id=f"core.c{index}") for index in range(6)]
    report = grade(make_problem(*checks), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    durations = [check.duration_ms for check in report.checks]
    assert all(100_000 <= duration < 100_050 for duration in durations), durations
    assert all(round(duration, 3) == duration for duration in durations)  # to the microsecond
    assert any(duration != int(duration) for duration in durations)  # and not to the millisecond


def test_a_reports_time_is_the_whole_gradings_in_milliseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([100.0, 102.5])
    monkeypatch.setattr(judge, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    report = grade(make_problem(*three_checks()), "code", pool=FakePool(InProcessWorker()))  # type: ignore[arg-type]
    assert report.duration_ms == 2500.0


def not_run(message: str) -> list[tuple[str, str]]:
    return [("skipped", f"not run: {message}")] * 3


def raised_on_load() -> LoadResult:
    info = ExceptionInfo(type="SyntaxError", ancestry=("SyntaxError", "Exception"), message="invalid syntax",
                         traceback=(TracebackLine(1, "<module>", "def f("), TracebackLine(7, "<module>", "x")))
    return LoadResult(ok=False, raised=info, output="")


@pytest.mark.parametrize(("loaded", "kind", "message", "line", "limit"), [
    pytest.param(raised_on_load(), "load", "your code failed to load: SyntaxError: invalid syntax (line 7 of your "
                 "code)", 7, None, id="raised"),
    pytest.param(LoadResult(ok=False), "load", "your code failed to load: Exception", None, None,
                 id="raised-nothing-named"),
    pytest.param(WorkerLost("loading your code took longer than 10 s", limit="time"), "limit",
                 "loading your code took longer than 10 s", None, "time", id="load-timed-out"),
    pytest.param(WorkerLost("the worker crashed while loading", limit="crash"), "load",
                 "the worker crashed while loading", None, "crash", id="load-crashed"),
    pytest.param(WorkerLost("the worker vanished"), "load", "the worker vanished", None, None, id="load-lost"),
])
def test_a_submission_that_does_not_load_runs_no_check(loaded: Any, kind: str, message: str, line: int | None,
                                                       limit: str | None) -> None:
    worker = InProcessWorker(loaded=loaded)
    emitted: list[str] = []
    report = grade(make_problem(*three_checks()), "code", pool=FakePool(worker),  # type: ignore[arg-type]
                   on_check=lambda r: emitted.append(r.id))
    assert report.error is not None
    assert (report.error.kind, report.error.message, report.error.line, report.error.limit) == (kind, message, line,
                                                                                                limit)
    assert [(check.status, check.message) for check in report.checks] == not_run(message)
    assert [(c.id, c.title, c.group, c.required) for c in report.checks] == [
        ("core.a", "A", "core", True), ("core.b", "B", "core", True), ("extra.c", "C", "extra", False)]
    assert emitted == ["core.a", "core.b", "extra.c"] and worker.requests == []


def test_without_a_sandbox_no_check_runs() -> None:
    report = grade(make_problem(*three_checks()), "code",
                   pool=FakePool(SandboxUnavailable("bubblewrap is missing")))  # type: ignore[arg-type]
    message = "the sandbox is unavailable, so your code was not run: bubblewrap is missing"
    assert report.error is not None and (report.error.kind, report.error.message) == ("sandbox", message)
    assert [(check.status, check.message) for check in report.checks] == not_run(message)


def test_a_sandbox_lost_midway_keeps_the_verdicts_already_given() -> None:
    worker = InProcessWorker(functions={"add": adds},
                             answers=[SandboxUnavailable("gone")])  # the first call: check A's
    report = grade(make_problem(*three_checks()), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [check.status for check in report.checks] == ["skipped"] * 3

    def second_fails_to_reach(sub: Any, ref: Any) -> None:
        sub.add(1, 2)  # in the first round trip, with the other checks' calls
        worker.answers.append(SandboxUnavailable("gone"))
        sub.add(1, 2)  # alone: the third check is done, but reported only after this one

    report = grade(make_problem(*three_checks(second_fails_to_reach)), "code",
                   pool=FakePool(worker))  # type: ignore[arg-type]
    message = "not run: the sandbox is unavailable, so your code was not run: gone"
    assert [(check.status, check.message) for check in report.checks] == [("passed", ""), ("skipped", message),
                                                                           ("skipped", message)]


@pytest.mark.parametrize(("time_left", "status"), [(0.0, "skipped"), (-1.0, "skipped"), (0.01, "passed")])
def test_a_check_is_not_run_once_the_total_time_is_used_up(time_left: float, status: str) -> None:
    result, worker = run_one(passes, worker=InProcessWorker(functions={"add": adds}, time_left=time_left))
    assert result.status == status
    if status == "skipped":
        assert result.message == "not run: the total time limit of 30 s for the whole submission was used up"
        assert result.duration_ms == 0.0 and worker.requests == []


def test_the_checks_run_side_by_side_sharing_round_trips() -> None:
    worker = InProcessWorker(functions={"add": adds})
    calls = []

    def session_grouped(requests: Sequence[Request]) -> Iterator[Answer]:
        calls.append(len(requests))
        return InProcessWorker.grouped_calls(worker, requests)

    worker.grouped_calls = session_grouped  # type: ignore[method-assign]
    checks = (*three_checks(), make_check(passes, id="core.d", title="D"), make_check(passes, id="extra.e", title="E",
                                                                                      required=False))
    report = grade(make_problem(*checks), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [check.status for check in report.checks] == ["passed"] * 5
    assert calls == [3, 2]  # the required checks side by side, then the advisory ones


def test_the_report_summarises_the_verdicts() -> None:
    report: Report = grade(make_problem(*three_checks(fails)), "code", pool=FakePool(InProcessWorker()))  # type: ignore[arg-type]
    assert (report.solved, [c.status for c in report.checks]) == (False, ["passed", "failed", "passed"])


# ----------------------------------------------------------------------------------- argument bookkeeping


@pytest.mark.parametrize(("tree", "storages"), [
    pytest.param(1, set(), id="scalar"),
    pytest.param({"tensor": {"storage": 3}}, {3}, id="tensor"),
    pytest.param({"tensor": {"storage": "3"}}, set(), id="forged-storage"),
    pytest.param({"tensor": [1]}, set(), id="tensor-not-an-object"),
    pytest.param({"tuple": [{"tensor": {"storage": 1}}, {"dict": [["k", {"list": [{"tensor": {"storage": 2}}]}]]}]},
                 {1, 2}, id="nested"),
    pytest.param({"list": [1.0, 2.0, {"tensor": {"storage": 4}}, None, "x"]}, {4}, id="numbers-beside-a-tensor"),
    pytest.param({"dict": [["a", 1], ["b", {"tuple": [2, {"tensor": {"storage": 5}}]}]]}, {5}, id="dict-values"),
    pytest.param({"tensor": {"dtype": "float32", "device": "meta"}}, set(), id="meta-tensor"),
    pytest.param({"float": "nan"}, set(), id="tagged-float"),
])
def test_the_storages_of_an_encoded_argument_are_found_at_any_depth(tree: Any, storages: set[int]) -> None:
    assert storages_of(tree) == storages


@pytest.mark.parametrize(("keys", "ordered"), [
    (["y", "10", "2", "a", "0"], ["0", "2", "10", "a", "y"]),
])
def test_argument_keys_order_positions_first_by_number(keys: list[str], ordered: list[str]) -> None:
    assert sorted(keys, key=judge._argument_order) == ordered


# ------------------------------------------------------------------------------------------- the learner's Stop


@dataclass
class StoppingWorker(InProcessWorker):
    """Answers requests as usual until request number `stop_at` (1-based), which ends in the learner's Stop."""

    stop_at: int = 2
    stop: GradingStopped = field(default_factory=lambda: GradingStopped("add(2, 3)", where=" (it was running line 3)"))

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str = "") -> Answer:
        if len(self.requests) + 1 == self.stop_at:
            self.requests.append({"function": function})
            raise self.stop
        return super().calls(request, blobs, timeout=timeout, what=what, function=function)


def adds_in_order(sub: Any, ref: Any) -> None:
    assert sub.add(2, 3) == 5


def test_a_stop_keeps_the_verdicts_given_and_names_the_call_it_interrupted() -> None:
    checks = (make_check(passes, id="core.a", title="A"), make_check(adds_in_order, id="core.b", title="B"),
              make_check(passes, id="extra.c", title="C", required=False))
    report = grade(make_problem(*checks), "code", pool=FakePool(StoppingWorker(stop_at=2)))  # type: ignore[arg-type]
    assert report.stopped is True and report.solved is False and report.error is None
    assert [(c.id, c.status, c.message) for c in report.checks] == [
        ("core.a", "passed", ""),
        ("core.b", "skipped", "stopped by you during add(2, 3) (it was running line 3)"),
        ("extra.c", "skipped", "not run: stopped by you"),
    ]


def test_a_stop_without_a_running_call_says_only_that_it_was_stopped() -> None:
    worker = StoppingWorker(stop_at=1, stop=GradingStopped())
    report = grade(make_problem(*three_checks()), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert report.stopped is True
    assert [c.message for c in report.checks] == ["not run: stopped by you"] * 3


def test_a_grading_that_is_not_stopped_says_so() -> None:
    report = grade(make_problem(*three_checks()), "code", pool=FakePool(InProcessWorker()))  # type: ignore[arg-type]
    assert report.stopped is False and report.solved is True


@pytest.mark.parametrize("worker", [
    pytest.param(InProcessWorker(loaded=WorkerLost("loading took too long", limit="time")), id="load-lost"),
    pytest.param(SandboxUnavailable("no bubblewrap"), id="no-sandbox"),
])
def test_a_grading_that_never_ran_a_check_was_not_stopped(worker: Any) -> None:
    report = grade(make_problem(*three_checks()), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert report.stopped is False and report.error is not None


@pytest.mark.parametrize(("stop", "message"), [
    pytest.param(GradingStopped("loading", where=" (it was running line 2)"),
                 "not run: stopped by you while your code was loading (it was running line 2)", id="during-load"),
    pytest.param(GradingStopped(), "not run: stopped by you", id="waiting-for-a-template"),
])
def test_a_stop_before_any_check_runs_none_of_them(stop: GradingStopped, message: str) -> None:
    report = grade(make_problem(*three_checks()), "code", pool=FakePool(InProcessWorker(loaded=stop)))  # type: ignore[arg-type]
    assert (report.stopped, report.solved, report.error) == (True, False, None)
    assert [(c.status, c.message) for c in report.checks] == [("skipped", message)] * 3
    assert report.status == "failed"


def test_a_stop_while_the_pool_opens_the_session_runs_no_check() -> None:
    report = grade(make_problem(*three_checks()), "code", pool=FakePool(GradingStopped()))  # type: ignore[arg-type]
    assert report.stopped is True and [c.message for c in report.checks] == ["not run: stopped by you"] * 3


# ---------------------------------------------------------------------------------------------- fairness


def adds_tagged(tag: int) -> Callable[..., None]:
    def check(sub: Any, ref: Any) -> None:
        assert sub.add(tag, 0) == tag

    return check


def interleaved_checks() -> tuple[Check, ...]:
    """Advisory and required checks declared alternately, an advisory one first."""
    return (make_check(adds_tagged(1), id="extra.a", title="A", required=False),
            make_check(adds_tagged(2), id="core.b", title="B"),
            make_check(adds_tagged(3), id="extra.c", title="C", required=False),
            make_check(adds_tagged(4), id="core.d", title="D"))


def first_arguments(worker: InProcessWorker) -> list[int]:
    decoded = []
    for request in worker.requests:
        for call in request["calls"]:
            args, _ = Decoder([bytearray(blob) for blob in request["blobs"]]).decode(call.arguments)
            decoded.append(args[0])
    return decoded


def test_every_required_check_runs_before_any_advisory_one_and_the_report_keeps_the_declared_order() -> None:
    worker = InProcessWorker(functions={"add": adds})
    emitted: list[str] = []
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker),  # type: ignore[arg-type]
                   on_check=lambda r: emitted.append(r.id))
    assert first_arguments(worker) == [2, 4, 1, 3]
    assert worker.advisory_at == 2  # the advisory budget starts once the required checks' requests are done
    assert emitted == ["core.b", "core.d", "extra.a", "extra.c"]
    assert [check.id for check in report.checks] == ["extra.a", "core.b", "extra.c", "core.d"]
    assert report.solved is True


def test_a_problem_without_advisory_checks_never_starts_the_advisory_budget() -> None:
    worker = InProcessWorker(functions={"add": adds})
    grade(make_problem(make_check(passes)), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert worker.advisory_at is None


def test_a_problem_of_advisory_checks_only_starts_the_advisory_budget_at_once() -> None:
    worker = InProcessWorker(functions={"add": adds})
    report = grade(make_problem(make_check(passes, id="extra.a", required=False)), "code",
                   pool=FakePool(worker))  # type: ignore[arg-type]
    assert worker.advisory_at == 0 and report.checks[0].status == "passed"


@pytest.mark.parametrize(("advisory_left", "status", "message"), [
    pytest.param(0.0, "skipped", "not run: the advisory budget of 10 s was spent", id="spent"),
    pytest.param(-0.5, "skipped", "not run: the advisory budget of 10 s was spent", id="overspent"),
    pytest.param(0.01, "passed", "", id="left"),
])
def test_an_advisory_check_runs_only_while_the_advisory_budget_lasts(advisory_left: float, status: str,
                                                                     message: str) -> None:
    worker = InProcessWorker(functions={"add": adds}, time_left=0.01, advisory_left=advisory_left)
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [(c.id, c.status, c.message) for c in report.checks if not c.required] == [
        ("extra.a", status, message), ("extra.c", status, message)]
    assert report.solved is True
    assert first_arguments(worker) == ([2, 4, 1, 3] if status == "passed" else [2, 4])


LOOPED = WorkerLost("time limit 2 s exceeded in add(x=1, y=0)", limit="time")


def test_an_advisory_check_that_breaks_its_call_limit_fails_alone_and_the_submission_is_solved() -> None:
    worker = InProcessWorker(functions={"add": adds})
    original = worker.calls

    def calls(request: CallsRequest, blobs: list[bytes], **kwargs: Any) -> Answer:
        if worker.advisory_at is not None and len(worker.requests) == worker.advisory_at:
            worker.answers.append(LOOPED)  # the first advisory request loops past its limit
        return original(request, blobs, **kwargs)

    worker.calls = calls  # type: ignore[method-assign]
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [(c.id, c.status, c.limit) for c in report.checks] == [
        ("extra.a", "failed", "time"), ("core.b", "passed", None), ("extra.c", "failed", "time"),
        ("core.d", "passed", None)]
    assert report.checks[2].message == "not run: add did not return within 2 s in check ‘A’ (an endless loop?)"
    assert (report.solved, report.status) == (True, "passed")


def test_a_required_check_that_breaks_its_call_limit_still_fails_and_its_function_stays_broken() -> None:
    worker = InProcessWorker(functions={"add": adds}, answers=[LOOPED])
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [(c.id, c.status, c.limit) for c in report.checks] == [
        ("extra.a", "failed", "time"), ("core.b", "failed", "time"), ("extra.c", "failed", "time"),
        ("core.d", "failed", "time")]
    assert report.checks[3].message == "not run: add did not return within 2 s in check ‘B’ (an endless loop?)"
    assert report.solved is False


@pytest.mark.parametrize(("required", "status", "message"), [
    pytest.param(False, "skipped", "cut short: advisory budget of 10 s used up in add(1, 0)", id="advisory"),
    pytest.param(True, "failed", "advisory budget of 10 s used up in add(1, 0)", id="required"),
])
def test_only_an_advisory_check_the_budget_cuts_short_is_skipped(required: bool, status: str, message: str) -> None:
    cut = WorkerLost("advisory budget of 10 s used up in add(1, 0)", limit="total_time")
    worker = InProcessWorker(functions={"add": adds}, answers=[cut])
    check = make_check(adds_tagged(1), id="core.a" if required else "extra.a", required=required)
    report = grade(make_problem(check), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [(c.status, c.message, c.limit) for c in report.checks] == [(status, message, "total_time")]
    assert report.solved is not required


def test_an_advisory_check_that_fails_on_its_own_is_failed_and_decides_nothing() -> None:
    checks = (make_check(passes), make_check(fails, id="extra.b", required=False))
    report = grade(make_problem(*checks), "code", pool=FakePool(InProcessWorker()))  # type: ignore[arg-type]
    assert [c.status for c in report.checks] == ["passed", "failed"] and report.solved is True


def test_a_stop_among_the_required_checks_runs_no_advisory_check() -> None:
    worker = StoppingWorker(stop_at=1)
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert worker.advisory_at is None
    assert [(c.id, c.status, c.message) for c in report.checks] == [
        ("extra.a", "skipped", "not run: stopped by you"),
        ("core.b", "skipped", "stopped by you during add(2, 3) (it was running line 3)"),
        ("extra.c", "skipped", "not run: stopped by you"),
        ("core.d", "skipped", "not run: stopped by you")]


def test_a_stop_among_the_advisory_checks_keeps_the_verdict_the_required_ones_gave() -> None:
    worker = StoppingWorker(stop_at=3)
    verdicts: list[bool] = []
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker),  # type: ignore[arg-type]
                   on_verdict=verdicts.append)
    assert [(c.id, c.status) for c in report.checks] == [
        ("extra.a", "skipped"), ("core.b", "passed"), ("extra.c", "skipped"), ("core.d", "passed")]
    assert verdicts == [True] and report.stopped is True and report.solved is True and report.status == "passed"


def test_the_verdict_is_told_once_when_the_required_checks_are_done_before_any_advisory_one_runs() -> None:
    worker = InProcessWorker(functions={"add": adds})
    told: list[tuple[str, Any]] = []
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker),  # type: ignore[arg-type]
                   on_check=lambda r: told.append(("check", r.id)), on_verdict=lambda v: told.append(("verdict", v)))
    assert told == [("check", "core.b"), ("check", "core.d"), ("verdict", True), ("check", "extra.a"),
                    ("check", "extra.c")]
    assert report.solved is True


def test_a_failed_required_check_is_told_as_not_solved_before_the_advisory_checks() -> None:
    checks = (make_check(passes), make_check(fails, id="core.two"), make_check(passes, id="extra.a", required=False))
    told: list[tuple[str, Any]] = []
    report = grade(make_problem(*checks), "code", pool=FakePool(InProcessWorker()),  # type: ignore[arg-type]
                   on_check=lambda r: told.append(("check", r.id)), on_verdict=lambda v: told.append(("verdict", v)))
    assert told == [("check", "core.one"), ("check", "core.two"), ("verdict", False), ("check", "extra.a")]
    assert report.solved is False


@pytest.mark.parametrize("worker", [
    pytest.param(lambda: StoppingWorker(stop_at=1), id="stopped-among-the-required"),
    pytest.param(lambda: InProcessWorker(loaded=WorkerLost("loading took too long", limit="time")), id="load-lost"),
    pytest.param(lambda: SandboxUnavailable("no bubblewrap"), id="no-sandbox"),
])
def test_no_verdict_is_told_when_the_required_checks_never_finished(worker: Callable[[], Any]) -> None:
    verdicts: list[bool] = []
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker()),  # type: ignore[arg-type]
                   on_verdict=verdicts.append)
    assert verdicts == [] and report.solved is False


def test_without_a_told_verdict_a_grading_that_ran_no_required_check_is_not_solved() -> None:
    # Nothing required to fail: what keeps the verdict unsolved is that none was told before the load failed.
    worker = InProcessWorker(loaded=WorkerLost("the worker vanished"))
    only_advisory = make_problem(make_check(passes, id="extra.a", required=False))
    verdicts: list[bool] = []
    report = grade(only_advisory, "code", pool=FakePool(worker), on_verdict=verdicts.append)  # type: ignore[arg-type]
    assert verdicts == [] and report.error is not None and report.solved is False


def test_an_advisory_check_the_grader_breaks_on_takes_no_told_verdict_back(caplog: pytest.LogCaptureFixture) -> None:
    checks = (make_check(passes), make_check(crashes, id="extra.a", required=False))
    verdicts: list[bool] = []
    report = grade(make_problem(*checks), "code", pool=FakePool(InProcessWorker()),  # type: ignore[arg-type]
                   on_verdict=verdicts.append)
    assert [c.status for c in report.checks] == ["passed", "error"]
    assert verdicts == [True] and report.solved is True and report.status == "passed"


def test_a_sandbox_lost_among_the_advisory_checks_takes_no_told_verdict_back() -> None:
    def loses_the_sandbox(sub: Any, ref: Any) -> None:
        worker.answers.append(SandboxUnavailable("gone"))
        sub.add(1, 2)

    worker = InProcessWorker(functions={"add": adds})
    checks = (make_check(passes), make_check(loses_the_sandbox, id="extra.a", required=False))
    verdicts: list[bool] = []
    report = grade(make_problem(*checks), "code", pool=FakePool(worker),  # type: ignore[arg-type]
                   on_verdict=verdicts.append)
    assert [c.status for c in report.checks] == ["passed", "skipped"] and report.error is not None
    assert verdicts == [True] and report.solved is True


@pytest.mark.parametrize(("checks", "outputs"), [
    pytest.param(interleaved_checks(), ["", "loaded\n", "", ""], id="the-first-required"),
    pytest.param(tuple(make_check(adds_tagged(n), id=f"extra.{n}", required=False) for n in (1, 2)),
                 ["loaded\n", ""], id="the-first-advisory-when-none-is-required"),
])
def test_what_loading_printed_goes_with_the_first_check_run(checks: tuple[Check, ...], outputs: list[str]) -> None:
    worker = InProcessWorker(functions={"add": adds}, loaded=LoadResult(ok=True, functions=("add",),
                                                                        output="loaded\n"))
    report = grade(make_problem(*checks), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [check.output for check in report.checks] == outputs


def test_when_no_required_check_could_run_what_loading_printed_goes_with_the_first_advisory_one() -> None:
    worker = InProcessWorker(functions={"add": adds}, time_left=0.0,
                             loaded=LoadResult(ok=True, functions=("add",), output="loaded\n"))
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    assert [(check.status, check.output) for check in report.checks] == [
        ("passed", "loaded\n"), ("skipped", ""), ("passed", ""), ("skipped", "")]


def test_a_sandbox_lost_among_the_required_checks_leaves_every_other_check_not_run() -> None:
    worker = InProcessWorker(functions={"add": adds}, answers=[SandboxUnavailable("gone")])
    report = grade(make_problem(*interleaved_checks()), "code", pool=FakePool(worker))  # type: ignore[arg-type]
    message = "not run: the sandbox is unavailable, so your code was not run: gone"
    assert [(c.id, c.status, c.message) for c in report.checks] == [
        ("extra.a", "skipped", message), ("core.b", "skipped", message), ("extra.c", "skipped", message),
        ("core.d", "skipped", message)]


def test_an_advisory_check_gets_the_gradings_context_and_may_record_the_experiment() -> None:
    def records(sub: Any, ref: Any, ctx: CheckContext) -> None:
        ctx.record_experiment(steps=[0, 1], series={"loss": [float(sub.add(1, 1)), 1.0]})

    checks = (make_check(passes), make_check(records, id="extra.b", required=False, wants_context=True))
    report = grade(make_problem(*checks), "code", pool=FakePool(InProcessWorker()))  # type: ignore[arg-type]
    assert [c.status for c in report.checks] == ["passed", "passed"]
    assert report.experiment is not None and report.experiment.series == {"loss": [2.0, 1.0]}


# ------------------------------------------------------------------- a helper of the problem's driving the learner's


def repeat(functions: dict[str, Callable[..., Any]], x: Any, steps: int) -> list[Any]:
    """helpers.py's kind of run: add applied to its own results, every state returned."""
    states = [x]
    for _ in range(steps):
        x = functions["add"](x, 1.0)
        states.append(x)
    return states


def with_helpers(**problem: Any) -> Problem:
    helpers = types.ModuleType("helpers")
    helpers.repeat = repeat  # type: ignore[attr-defined]
    helpers.CONSTANT = 3  # type: ignore[attr-defined]
    return dataclasses.replace(make_problem(**problem), helpers_module=helpers)


def helper_worker() -> InProcessWorker:
    return InProcessWorker(functions={"add": adds, "scale": lambda x, factor: x * factor}, helpers={"repeat": repeat})


def test_a_helper_call_names_the_helpers_module_and_the_learner_functions_it_drives() -> None:
    worker = helper_worker()
    run = CheckRunner(problem=with_helpers(), session=worker, functions=("add", "scale"))
    result = RemoteSubmission(run).from_helpers("repeat", uses=("add",)).call(torch.zeros(2), 3)
    assert [state.tolist() for state in result.value] == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    (call,) = worker.requests[-1]["calls"]
    assert (call.function, call.module, call.uses) == ("repeat", "helpers", ("add",))
    assert worker.requests[-1]["function"] == "repeat"


def test_a_learner_function_call_names_no_module_and_drives_nothing() -> None:
    worker = helper_worker()
    run = CheckRunner(problem=with_helpers(), session=worker, functions=("add", "scale"))
    RemoteSubmission(run).add.call(torch.zeros(2), 1.0)
    (call,) = worker.requests[-1]["calls"]
    assert (call.function, call.module, call.uses) == ("add", "", ())


def test_a_helper_is_described_by_its_own_parameters_after_the_functions_it_is_handed() -> None:
    run = CheckRunner(problem=with_helpers(), session=helper_worker(), functions=("add", "scale"))
    helper = RemoteSubmission(run).from_helpers("repeat", uses=("add", "scale"))
    assert (helper.name, helper.parameters, helper.uses) == ("repeat", ("x", "steps"), ("add", "scale"))


def test_a_helper_that_drives_a_function_the_code_does_not_define_fails_before_any_request() -> None:
    worker = helper_worker()
    run = CheckRunner(problem=with_helpers(), session=worker, functions=("add",))
    with pytest.raises(CheckFailed, match=r"^your code defines no function scale \(expected scale\(x, factor\)\)$"):
        RemoteSubmission(run).from_helpers("repeat", uses=("add", "scale")).call(torch.zeros(2), 1)
    assert worker.requests == []


@pytest.mark.parametrize(("name", "uses", "problem", "message"), [
    ("no_such", ("add",), with_helpers, "check bug: helpers.py of adder has no function 'no_such', or it is handed "
                                        "no learner function"),
    ("CONSTANT", ("add",), with_helpers, "check bug: helpers.py of adder has no function 'CONSTANT', or it is "
                                         "handed no learner function"),
    ("repeat", (), with_helpers, "check bug: helpers.py of adder has no function 'repeat', or it is handed no "
                                 "learner function"),
    ("repeat", ("add", "subtract"), with_helpers, "check bug: 'subtract' is not a function of problem adder"),
    ("repeat", ("add",), make_problem, "check bug: helpers.py of adder has no function 'repeat', or it is handed no "
                                       "learner function"),
])
def test_a_helper_named_wrongly_is_a_check_bug(name: str, uses: tuple[str, ...], problem: Callable[[], Problem],
                                               message: str) -> None:
    run = CheckRunner(problem=problem(), session=helper_worker(), functions=("add", "scale"))
    with pytest.raises(ValueError) as raised:
        RemoteSubmission(run).from_helpers(name, uses=uses)
    assert str(raised.value) == message
