"""The trusted side: runs a problem's checks in this process, sends every call of a learner's function to the
sandboxed worker, and decides every verdict here, where the submission cannot reach."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
import math
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from grader import protocol
from grader.calls import (
    RESOURCE_LIMITS,
    CallResult,
    CheckFailed,
    ExceptionInfo,
    WorkerLost,
    describe_call,
)
from grader.cancel import CancelToken, GradingStopped, OnCall
from grader.checks import Check, with_hint
from grader.contract.expect import contract_mismatch
from grader.contract.schema import FunctionContract
from grader.helpers_import import HELPERS_MODULE
from grader.interleave import CallSession, GroupedCallSession, Interleaver, TaskSession
from grader.messages import CallOutcome, CallsReply, CallsRequest, RequestedCall, TooLarge
from grader.pool import WorkerPool
from grader.problems import Problem
from grader.refcache import answers_for
from grader.report import CheckResult, Experiment, Report, ReportError, cap_text, summarise
from grader.sandbox import SandboxUnavailable
from grader.session import LoadResult, WorkerSession
from grader.vjp import default_cotangent, same_cotangent, tensors_in

log = logging.getLogger(__name__)

MAX_CHECK_OUTPUT = 4000  # characters of a check's captured output kept in the report
SERIES_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # app/markdown.py's chart placeholder
MAX_X_LABEL = 40  # characters of an experiment's axis label: a word or two under the chart
# What a call raises when it runs into a process, thread or memory limit ("can't start new thread" is a
# RuntimeError, a failed fork a BlockingIOError).
RESOURCE_ERRORS = ("MemoryError", "RuntimeError", "OSError")
MAX_SEEN = 256  # calls a check keeps for first_mismatch: the value it crashes on is one of its latest
MAX_SEEN_BYTES = 64 * 1024 * 1024  # and bytes of their results (a loop over [65536, 128] queues keeps two)


def exception_info(raised: ExceptionInfo | None, *, memory_mb: int | None = None) -> ExceptionInfo:
    """The learner's exception as a verdict shows it: an out-of-memory one says which limit it ran into
    (`memory_mb`). None (a reply that names no exception) becomes a bare `Exception`."""
    if raised is None:
        return ExceptionInfo(type="Exception", ancestry=(), message="")
    if memory_mb is None or ("MemoryError" not in raised.ancestry and "can't allocate memory" not in raised.message):
        return raised
    return dataclasses.replace(raised, message=f"{raised.message} [memory limit {memory_mb} MiB reached]".strip())


@dataclass
class CheckContext:
    """The optional third argument of a check."""

    experiment: Experiment | None = None

    def record_experiment(self, *, steps: Sequence[int], series: dict[str, Sequence[float]],
                          x_label: str = "step") -> None:
        if self.experiment is not None:
            # The notes draw one experiment per grading: a second would silently replace the first's charts.
            raise ValueError("a grading records one experiment; record every series in one record_experiment call")
        if not isinstance(x_label, str) or not 0 < len(x_label) <= MAX_X_LABEL:
            raise ValueError(f"x_label must be a string of 1 to {MAX_X_LABEL} characters, got {x_label!r}")
        clean: dict[str, list[float | None]] = {}
        for name, values in series.items():
            if not SERIES_NAME.fullmatch(name):
                # The notes place a chart by its series' name, and the page only draws names of this form.
                raise ValueError(f"series name {name!r} must be 1 to 64 letters, digits, '_' or '-'")
            if len(values) != len(steps):
                raise ValueError(f"series '{name}' has {len(values)} values for {len(steps)} steps")
            clean[name] = [float(v) if math.isfinite(float(v)) else None for v in values]  # JSON has no nan
        self.experiment = Experiment(steps=[int(s) for s in steps], series=clean, x_label=x_label)


@dataclass
class RemoteFunction:
    """A learner's function as checks see it; each call is a request to the sandboxed worker. With `uses`, a
    function of the problem's helpers.py instead (RemoteSubmission.from_helpers), handed those learner functions."""

    name: str
    parameters: tuple[str, ...]
    runner: CheckRunner
    uses: tuple[str, ...] = ()
    # The check's latest calls of learner functions that returned: where the check then crashes on a value the
    # contract does not allow (None from a forgotten return, a list, a tensor of another shape), the learner is
    # told what their function returned, not that the check has a bug. Read only then (first_mismatch): a check
    # that does not crash pays one append a call.
    seen: SeenCalls = field(default_factory=lambda: SeenCalls())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(*args, **kwargs).unwrap()

    def call(self, *args: Any, grads: Sequence[str] = (), grad_output: Any = None, **kwargs: Any) -> CallResult:
        """One call. `grads`: arguments to get gradients for, as vector-Jacobian products of the result with
        `grad_output` (a tensor shaped like the result, or a tuple for a tuple of results); by default ones for a
        one-element result and seeded random values otherwise, given back as `CallResult.grad_output`."""
        return self.map([(args, kwargs)], grads=grads, grad_outputs=None if grad_output is None else [grad_output])[0]

    def map(
        self, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]], *, grads: Sequence[str] = (),
        grad_outputs: Sequence[Any] | None = None, keep: bool = False,
    ) -> list[CallResult]:
        calls = list(calls)
        results = self.runner.run_calls(self, calls, grads=tuple(grads), grad_outputs=grad_outputs, keep=keep)
        contract = _contract_of(self.runner.problem, self.name)
        if contract is not None:
            for index, result in enumerate(results):  # one result a call, in order
                args, kwargs = calls[index]
                if result.raised is None:
                    self.seen.add(Seen(contract, {**dict(zip(self.parameters, args, strict=False)), **kwargs},
                                       result))
        return results

    def key_of(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
        if name in kwargs:
            return name
        if name in self.parameters and self.parameters.index(name) < len(args):
            return str(self.parameters.index(name))
        raise ValueError(f"check bug: '{name}' is not an argument of this call of {self.name}")

    def name_of(self, key: str) -> str:
        if key.isdigit():
            index = int(key)
            return self.parameters[index] if index < len(self.parameters) else f"arg{index}"
        return key


class RemoteSubmission:
    """`sub` in a check: attributes are the learner's functions."""

    def __init__(self, runner: CheckRunner, seen: SeenCalls | None = None) -> None:
        self._runner = runner
        self._seen = SeenCalls() if seen is None else seen  # RemoteFunction.seen, shared by one check's functions

    def __getattr__(self, name: str) -> RemoteFunction:
        if name.startswith("_"):
            raise AttributeError(name)
        problem = self._runner.problem
        if name not in problem.parameter_names:
            raise AttributeError(f"check bug: '{name}' is not a function of problem {problem.slug}")
        return RemoteFunction(name, problem.parameter_names[name], self._runner, seen=self._seen)

    def from_helpers(self, name: str, *, uses: Sequence[str]) -> RemoteFunction:
        """`name` of the problem's helpers.py, run in the worker beside the learner's code (it is public, like
        the learner's) and handed the learner's functions `uses` as a dict, its first parameter: a chain of calls
        that feed each other, one request instead of one a step. What it returns is the learner's to shape, as a
        learner function's result is: a check compares it all."""
        helpers = self._runner.problem.helpers_module
        function = getattr(helpers, name, None)  # None without a helpers.py: getattr(None, ...) is None
        if not callable(function) or not uses:
            raise ValueError(f"check bug: helpers.py of {self._runner.problem.slug} has no function {name!r}, or it "
                             "is handed no learner function")
        for used in uses:
            if used not in self._runner.problem.parameter_names:
                raise ValueError(f"check bug: '{used}' is not a function of problem {self._runner.problem.slug}")
        parameters = tuple(inspect.signature(function).parameters)[1:]  # the first is the dict of functions
        # Its calls go to a SeenCalls of its own, which first_mismatch never reads: what a helper returns is the
        # check's to read, whatever the learner functions it drives declare (one may share a learner function's name).
        return RemoteFunction(name, parameters, self._runner, tuple(uses))


@dataclass
class CheckRunner:
    problem: Problem
    session: CallSession
    functions: tuple[str, ...]
    output: list[str] = field(default_factory=list)

    def run_calls(
        self, function: RemoteFunction, calls: list[tuple[tuple[Any, ...], dict[str, Any]]], *, grads: tuple[str, ...],
        grad_outputs: Sequence[Any] | None = None, keep: bool,
    ) -> list[CallResult]:
        descriptions = [
            functools.partial(describe_call, function.name, function.parameters, tuple(a), dict(k)) for a, k in calls
        ]
        for name in function.uses or (function.name,):
            if name not in self.functions:
                declared = {f.name: f.signature for f in self.problem.spec.functions}
                raise CheckFailed(f"your code defines no function {name} (expected {declared.get(name, name)})")
        encoder = protocol.Encoder(preserve_views=True)
        wire, arguments_blobs = [], []
        if grad_outputs is not None and len(grad_outputs) != len(calls):
            raise ValueError(f"check bug: {len(grad_outputs)} grad_outputs for {len(calls)} calls")
        for index, (args, kwargs) in enumerate(calls):
            args, kwargs = tuple(args), dict(kwargs)
            encoder.begin()  # each call's tensors get bytes of their own: what one call writes is its own
            # One value, as the worker decodes it: its containers count against the item cap there, so here too.
            arguments = encoder.encode((args, kwargs))
            positional, keyword = arguments["tuple"][0]["tuple"], arguments["tuple"][1]["dict"]
            keys = [str(index) for index in range(len(args))] + list(kwargs)
            arguments_blobs.append(
                {key: _storages_of(tree) for key, tree in zip(keys, positional + [t for _, t in keyword], strict=True)})
            given = grad_outputs[index] if grad_outputs is not None else None
            wire.append(RequestedCall(
                function=function.name,
                arguments=arguments,
                grads=tuple(function.key_of(name, args, kwargs) for name in grads),
                grad_output=None if given is None else encoder.encode(given, 1),
                module=HELPERS_MODULE if function.uses else "",
                uses=function.uses,
                keep=keep,
            ))
        limits = self.problem.limits
        timeout = limits.call_timeout_s * len(calls)  # the session also holds every request to the total limit

        def what() -> str:
            first = descriptions[0]()
            return first if len(calls) == 1 else f"{len(calls)} calls of {function.name}, e.g. {first}"

        answer = self.session.calls(CallsRequest(tuple(wire)), encoder.blobs, timeout=timeout, what=what,
                                    function=function.name)
        reply = answer.message
        if isinstance(reply, TooLarge):
            raise WorkerLost(f"{what()} returned {reply.size / 2**20:.1f} MiB of tensors; the limit is "
                             f"{limits.message_mb} MiB", limit="message_size")
        if not isinstance(reply, CallsReply) or len(reply.results) != len(calls):
            raise WorkerLost(f"the worker answered {what()} with a malformed reply")
        results = reply.results
        written = answer.written
        try:
            outcome = [
                self._result(function, description, item, answer.blobs,
                             {key for key, used in blobs.items() if any(written[i] for i in used)},
                             drew_cotangent=bool(call.grads) and call.grad_output is None, position=position,
                             keep=keep)
                for position, (description, item, blobs, call)
                in enumerate(zip(descriptions, results, arguments_blobs, wire, strict=True))
            ]
        except protocol.ProtocolError as exc:  # the learner's code forged a value the judge cannot read
            raise WorkerLost(f"the worker sent a malformed message during {what()} ({exc})") from None
        for result, (args, kwargs), call, used in zip(outcome, calls, wire, arguments_blobs, strict=True):
            result.arguments = (tuple(args), dict(kwargs))
            result.encoded = (call.arguments, [encoder.blobs[i] for i in sorted(set().union(*used.values()))])
        return outcome

    def _result(
        self, function: RemoteFunction, description: Callable[[], str], item: CallOutcome, blobs: list[bytearray],
        written: set[str], *, drew_cotangent: bool, position: int, keep: bool,
    ) -> CallResult:
        if item.missing:
            raise CheckFailed(f"your code defines no function {function.name}")
        if item.output:
            self.output.append(item.output)
        decoder = protocol.Decoder(blobs)  # one per call: the item cap counts per call on both sides
        changed = written | set(item.mutated)
        # No gradient of an argument the call changed is read: a hook the learner's code registered on it runs in
        # the worker's backward and could make that gradient anything (the values of the call are still read).
        grads = {function.name_of(key): None if value is None or key in changed else decoder.decode(value)
                 for key, value in (item.grads or {}).items()}
        withheld = [function.name_of(key) for key in (item.grads or {}) if key in changed]
        backward_error = item.backward_error[:2000] if item.backward_error else None
        if withheld:
            backward_error = (f"your code changed {', '.join(withheld)} (its values, shape, version, requires_grad or "
                              "hooks), so no gradient that reaches it is measured; leave every argument as it was")
        value = None if item.raised else decoder.decode(item.value)
        # A call that asked for gradients with no cotangent is differentiated with the default one, which the worker
        # reports and nothing else: the judge draws it too and uses its own, since a kernel can forge the worker's
        # and leave no trace (grader.vjp.default_cotangent), and a gradient check that read no cotangent where the
        # worker sent none would expect no gradient.
        drawn = default_cotangent(value) if drew_cotangent else None
        reported = None if item.grad_output is None else decoder.decode(item.grad_output)
        if reported is not None and (drawn is None or not same_cotangent(reported, drawn)):
            raise WorkerLost(f"your code changed torch for the grader too during {description()}: its gradient came "
                             "back computed with a cotangent that is not the cotangent the grader draws; submissions "
                             "may not register kernels or leave modes or hooks on the grader's tensors",
                             limit="tampering")
        if any(earlier >= position for earlier in item.shares) or (item.shares and not keep):
            raise protocol.ProtocolError(f"shares names calls {list(item.shares)} for call {position} of the request")
        return CallResult(
            function=function.name,
            call=description,
            value=value,
            raised=self._raised(item.raised) if item.raised else None,
            grads=grads,
            mutated=tuple(function.name_of(key) for key in sorted(changed, key=_argument_order)),
            aliased=tuple(function.name_of(key) for key in item.aliased),
            shares=item.shares,
            output=item.output,
            duration_ms=item.duration_ms,
            backward_error=backward_error,
            grad_output=drawn,
        )

    def _raised(self, raised: ExceptionInfo) -> ExceptionInfo:
        info = exception_info(raised, memory_mb=self.problem.limits.memory_mb)
        if not info.is_a(*RESOURCE_ERRORS):
            return info  # a TypeError or ValueError is the learner's answer, not a limit: skip the cgroup reads
        notes = self.session.limit_notes()
        if notes and notes.strip(" []") not in info.message:
            info = ExceptionInfo(type=info.type, ancestry=info.ancestry, message=info.message + notes,
                                 traceback=info.traceback)
        return info

    def take_output(self) -> str:
        text = "".join(self.output)
        self.output.clear()
        return text if len(text) <= MAX_CHECK_OUTPUT else text[:MAX_CHECK_OUTPUT] + "\n[... output truncated]"


def _diagnosed(failure: CheckFailed, problem: Problem) -> tuple[str, str | None]:
    """The failure's message, with the known mistake that reproduces the learner's value in place of the
    check's generic hint when one does (grader.diagnose), and that mistake (instructors count them)."""
    call = failure.call
    if call is None or problem.diagnoser is None:
        return str(failure), None
    try:
        diagnosis = problem.diagnoser.diagnose(call)
    except Exception:  # noqa: BLE001 - a diagnosis is a courtesy; the verdict stands without it
        log.warning("diagnosing %s failed", call.function, exc_info=True)
        return str(failure), None
    return (with_hint(failure.bare, diagnosis), diagnosis) if diagnosis else (str(failure), None)


# The blobs an encoded argument's tensors use (grader.protocol.storages_of, which the worker reads cotangents with).
_storages_of = protocol.storages_of


@dataclass(frozen=True)
class Seen:
    """A call of a learner function in a check, and what it returned."""

    contract: FunctionContract
    arguments: dict[str, Any]  # by parameter name
    result: CallResult


class SeenCalls:
    """The latest calls of learner functions in one check, with what they returned (first_mismatch reads them):
    at most MAX_SEEN calls and MAX_SEEN_BYTES of results, so a check that loops over large results keeps no more
    of them alive than that."""

    def __init__(self) -> None:
        self._entries: deque[tuple[Seen, int]] = deque()
        self._bytes = 0

    def add(self, seen: Seen) -> None:
        size = sum(t.nbytes for t in tensors_in(seen.result.value))
        self._entries.append((seen, size))
        self._bytes += size
        while len(self._entries) > MAX_SEEN or (self._bytes > MAX_SEEN_BYTES and len(self._entries) > 1):
            self._bytes -= self._entries.popleft()[1]

    def __iter__(self) -> Iterator[Seen]:
        return (seen for seen, _ in self._entries)


def _contract_of(problem: Problem, name: str) -> FunctionContract | None:
    """The contract function `name` declares in problem.toml, or None where it declares none."""
    return next((function.contract for function in problem.spec.functions if function.name == name), None)


def first_mismatch(seen: Iterable[Seen]) -> str | None:
    """The first of these calls whose result is not what the contract declares, and how (None: every one is)."""
    for entry in seen:
        try:
            found = contract_mismatch(entry.result.value, entry.contract, entry.arguments)
        except Exception:  # noqa: BLE001 - naming the value must not fail the naming of the crash it explains
            log.exception("comparing a result of %s with its contract failed", entry.result.function)
            continue
        if found is not None:
            return f"{entry.result.call} returned {found}"
    return None


def _argument_order(key: str) -> tuple[int, int | str]:
    return (0, int(key)) if key.isdigit() else (1, key)


def run_check(check: Check, runner: CheckRunner, context: CheckContext) -> CheckResult:
    """One check's verdict. Its duration is the scheduler's to give (grader.interleave counts the check's own
    time across its pauses, plus its calls' time in the worker): a clock here would count the other checks too."""
    reference = answers_for(runner.problem).module  # the reference, each answer computed once per battery
    diagnosis: str | None = None
    seen = SeenCalls()
    try:
        if check.wants_context:
            check.function(RemoteSubmission(runner, seen), reference, context)
        else:
            check.function(RemoteSubmission(runner, seen), reference)
        status, message, limit = "passed", "", None
    except CheckFailed as exc:
        (message, diagnosis), status, limit = _diagnosed(exc, runner.problem), "failed", None
    except WorkerLost as exc:
        status, message, limit = "failed", exc.reason, exc.limit
    except Exception as exc:  # noqa: BLE001 - a crashing check is the grader's bug, never the learner's
        status, limit = "error", None
        odd = first_mismatch(seen)
        if odd is not None:  # unless it crashed on a value the contract does not allow: the learner's to fix
            status, message = "failed", f"{odd}; this check cannot go on with that ({type(exc).__name__}: {exc})"
        else:
            log.exception("check %s crashed", check.id)
            message = (f"this check itself crashed ({type(exc).__name__}: {exc}); that is a bug in the problem's "
                       "checks, not in your code")
    return CheckResult(
        id=check.id,
        title=check.title,
        group=check.group,
        required=check.required,
        status=status,
        message=cap_text(message),  # live events carry it as it is: cap here, not only in the report
        output=runner.take_output(),
        limit=limit,
        diagnosis=diagnosis,
    )


def _run_checks(
    problem: Problem, session: GroupedCallSession, loaded: LoadResult, context: CheckContext,
    emit: Callable[[CheckResult], None], decided: Callable[[], None],
) -> bool:
    """Every required check, then every advisory one (each group in declared order): nothing an advisory check
    does can stop, slow or fail a required one. Within a group the checks run side by side (grader.interleave),
    each reported as soon as it and those before it are done. The required checks spend the total time limit,
    the advisory ones the advisory budget, which starts when the last required check is done; `decided` is
    called then, before any advisory check runs, unless a stop ended the required ones. True when the grading
    was stopped (its CancelToken): the checks not done by then are `skipped`."""
    limits = problem.limits
    interleaver = Interleaver(session=session, limits=limits)  # one: a function that broke a limit stays broken
    # What loading printed goes with the first check that runs: the first check of a group takes this list, and
    # running it empties it (CheckRunner.take_output), so a group after one that ran finds it empty.
    first_output = [loaded.output] if loaded.output else []
    required = [check for check in problem.checks if check.required]
    advisory = [check for check in problem.checks if not check.required]
    total = f"the total time limit of {limits.total_timeout_s:g} s for the whole submission was used up"
    stopped = _run_group(problem, interleaver, required, loaded, context, emit, first_output, spent=total)
    if stopped:
        for check in advisory:
            emit(_not_run(check, STOPPED))
        return stopped
    decided()
    if advisory:
        session.start_advisory_budget()
        spent = f"the advisory budget of {limits.advisory_budget_s:g} s was spent"
        stopped = _run_group(problem, interleaver, advisory, loaded, context, emit, first_output, spent=spent,
                             advisory=True)
    return stopped


def _run_group(
    problem: Problem, interleaver: Interleaver, checks: Sequence[Check], loaded: LoadResult, context: CheckContext,
    emit: Callable[[CheckResult], None], first_output: list[str], *, spent: str, advisory: bool = False,
) -> bool:
    """Run `checks` side by side. `spent`: why a check finds its budget used up before it starts; in the
    advisory group a check the budget cuts short is `skipped` as well (it decides nothing)."""

    def task(check: Check, output: list[str]) -> Callable[[TaskSession], CheckResult]:
        def run(task_session: TaskSession) -> CheckResult:
            if task_session.remaining() <= 0:
                return _not_run(check, spent)
            runner = CheckRunner(problem=problem, session=task_session, functions=loaded.functions, output=output)
            result = run_check(check, runner, context)
            if advisory and result.limit == "total_time":
                result = result.model_copy(update={"status": "skipped", "message": f"cut short: {result.message}"})
            return result

        return run

    def done(index: int, result: CheckResult, seconds: float) -> None:
        if result.status != "skipped":  # a skipped check took no time: it keeps 0
            result = result.model_copy(update={"duration_ms": round(seconds * 1000, 3)})
        emit(result)

    stopped = False

    def on_stopped(index: int, stop: GradingStopped | None) -> CheckResult:
        nonlocal stopped
        stopped = True
        return _stopped(checks[index], stop)

    tasks = [task(check, first_output if index == 0 else []) for index, check in enumerate(checks)]
    interleaver.run(tasks, done, titles=[check.title for check in checks], on_stopped=on_stopped)
    return stopped


def _not_run(check: Check, reason: str) -> CheckResult:
    return CheckResult(id=check.id, title=check.title, group=check.group, required=check.required,
                       status="skipped", message=f"not run: {reason}")


STOPPED = "stopped by you"


def _stopped(check: Check, stop: GradingStopped | None) -> CheckResult:
    """A check the learner's Stop ended: `stop` for the one whose call was running then (its message says which
    call and line), None for one that had not got that far."""
    if stop is None or not stop.what:
        return _not_run(check, STOPPED)
    return CheckResult(id=check.id, title=check.title, group=check.group, required=check.required,
                       status="skipped", message=cap_text(f"{STOPPED} during {stop.what}{stop.where}"))


def _not_reported(problem: Problem, results: list[CheckResult]) -> list[Check]:
    """The problem's checks that have no verdict yet, in declared order."""
    reported = {result.id for result in results}
    return [check for check in problem.checks if check.id not in reported]


def _load_error(session: WorkerSession) -> tuple[LoadResult | None, ReportError | None]:
    try:
        loaded = session.load()
    except WorkerLost as exc:
        kind = "limit" if exc.limit in RESOURCE_LIMITS else "load"
        return None, ReportError(kind=kind, message=exc.reason, limit=exc.limit)
    if loaded.ok:
        return loaded, None
    info = exception_info(loaded.raised)  # messages.Loaded guarantees one for a failed load
    return loaded, ReportError(kind="load", message=f"your code failed to load: {info.summary()}", line=info.line)


def grade(
    problem: Problem,
    code: str,
    *,
    pool: WorkerPool,
    on_check: Callable[[CheckResult], None] | None = None,
    seed: int = 0,
    cancel: CancelToken | None = None,
    on_call: OnCall | None = None,
    on_verdict: Callable[[bool], None] | None = None,
) -> Report:
    """Grade one submission. Always returns a report, whatever the submission does.

    `on_verdict`: told once, as soon as the required checks are done and before the advisory ones run, whether
    the submission is solved (not told when a stop or a load failure ended the grading before then). The
    report's `solved` is the same: nothing after that moment takes a verdict back.

    `cancel`: setting it (from any thread) ends the grading at once: the running call's child is killed, checks
    done by then keep their verdicts, the others are `skipped` ("stopped by you") and the report says
    `stopped`. `on_call`: told, in the grading thread, each time the judge sends the worker a request
    (grader.cancel.CallStarted: which function, since when) and with None when none is waiting."""
    started = time.perf_counter()
    results: list[CheckResult] = []
    context = CheckContext()
    error: ReportError | None = None
    stopped = False
    announced = False  # the verdict given when the required checks were done: solved

    def emit(result: CheckResult) -> None:
        results.append(result)
        if on_check is not None:
            on_check(result)

    def decided() -> None:
        nonlocal announced
        # every check gets a result, so this is summarise's `bool(checks) and required_ok` at this moment
        announced = bool(problem.checks) and all(result.status == "passed" for result in results if result.required)
        if on_verdict is not None:
            on_verdict(announced)

    try:
        modules = {HELPERS_MODULE: problem.helpers} if problem.helpers else {}
        with pool.session(code, problem.limits, seed=seed, modules=modules, banned_calls=problem.banned_calls,
                          cancel=cancel, on_call=on_call) as session:
            loaded, error = _load_error(session)
            if error is None and loaded is not None:
                stopped = _run_checks(problem, session, loaded, context, emit, decided)
    except SandboxUnavailable as exc:
        error = ReportError(kind="sandbox", message=f"the sandbox is unavailable, so your code was not run: {exc}")
    except GradingStopped as stop:  # before any check ran: waiting for a template, or loading the code
        stopped, error = True, None
        reason = f"{STOPPED} while your code was loading{stop.where}" if stop.what else STOPPED
        for check in _not_reported(problem, results):
            emit(_not_run(check, reason))
    if error is not None:
        for check in _not_reported(problem, results):
            emit(_not_run(check, error.message))
    answers_for(problem).save()  # the CLI keeps the reference's new answers on disk; the server, in memory only
    declared = {check.id: index for index, check in enumerate(problem.checks)}
    return summarise(
        problem=problem.slug,
        checks=sorted(results, key=lambda result: declared[result.id]),  # shown as checks.py declares them
        experiment=context.experiment,
        limits=problem.limits.as_report(),
        sandbox=pool.sandbox,
        duration_ms=(time.perf_counter() - started) * 1000,
        error=error,
        stopped=stopped,
        verdict=announced,
    )
