"""Specification of grader.interleave, through a scripted session: what each request reaches the worker with
(alone or merged), how a broken limit is remembered and worded, what a check's time counts, and what a check may
not do. The session answers each call with its tag, or fails it the way a call tagged "<limit>!" says."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import greenlet
import pytest
import torch

from grader.calls import WorkerLost
from grader.cancel import GradingStopped
from grader.interleave import NOT_RUN, Answer, Interleaver, Request, TaskSession
from grader.limits import Limits
from grader.messages import CallOutcome, CallsReply, CallsRequest, RequestedCall, TooLarge

LIMIT_KINDS = sorted(NOT_RUN)


@dataclass
class ScriptedSession:
    """Records every request as it reaches the worker: (path, function, timeout, what, tags)."""

    duration_ms: float = 2.0
    time_left: float = 42.0
    notes: str = " [a note]"
    seen: list[tuple[str, str, float, str, list[str]]] = field(default_factory=list)

    def remaining(self) -> float:
        return self.time_left

    def limit_notes(self) -> str:
        return self.notes

    def _answer(self, path: str, request: Request) -> Answer:
        what = request.what if isinstance(request.what, str) else request.what()
        tags = [call.arguments for call in request.message.calls]
        self.seen.append((path, request.function, request.timeout, what, tags))
        for tag in tags:
            if tag.endswith("!"):
                raise WorkerLost(f"{tag} during {what}", limit=tag[:-1] or None)
            if tag == "big":
                return Answer(TooLarge(size=9), [])
        return Answer(CallsReply(tuple(CallOutcome(value=tag, duration_ms=self.duration_ms) for tag in tags)), [])

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str = "") -> Answer:
        return self._answer("alone", Request(request, blobs, timeout, what, function))

    def grouped_calls(self, requests: list[Request]) -> Iterator[Answer]:
        for request in requests:
            yield self._answer("merged", request)

    def start_advisory_budget(self) -> None:
        """Part of GroupedCallSession; the interleaver never calls it (the judge does)."""


def ask(session: TaskSession, function: str, *tags: str, timeout: float = 3.0) -> Any:
    """The tags' values, or "<limit>: <reason>" when the request failed."""
    request = CallsRequest(tuple(RequestedCall(function=function, arguments=tag) for tag in tags))
    try:
        answer = session.calls(request, [], timeout=timeout, what=lambda: f"{function}({','.join(tags)})",
                               function=function)
    except WorkerLost as exc:
        return f"{exc.limit}: {exc.reason}"
    if isinstance(answer.message, TooLarge):
        return f"too large: {answer.message.size}"
    assert isinstance(answer.message, CallsReply)  # the scripted session answers with results or TooLarge only
    return [reply.value for reply in answer.message.results]


def run(tasks: Sequence[Callable[[TaskSession], Any]], *, merge: bool = True, titles: Sequence[str] = (),
        session: ScriptedSession | None = None, **limits: Any) -> tuple[list[Any], ScriptedSession, Interleaver]:
    session = session or ScriptedSession()
    interleaver = Interleaver(session=session, limits=Limits(**limits), merge=merge)
    done: list[tuple[int, Any, float]] = []
    interleaver.run(tasks, lambda index, result, seconds: done.append((index, result, seconds)), titles=titles)
    assert [index for index, _, _ in done] == list(range(len(tasks)))
    return [result for _, result, _ in done], session, interleaver


# -------------------------------------------------------------------------------- what reaches the worker


@pytest.mark.parametrize("merge", [True, False], ids=["merged", "alone"])
def test_a_request_reaches_the_worker_with_its_own_function_timeout_and_description(merge: bool) -> None:
    results, session, _ = run([lambda s: ask(s, "f", "a", timeout=1.5), lambda s: ask(s, "g", "b", timeout=2.5)],
                              merge=merge)
    assert results == [["a"], ["b"]]
    path = "merged" if merge else "alone"
    assert session.seen == [(path, "f", 1.5, "f(a)", ["a"]), (path, "g", 2.5, "g(b)", ["b"])]


def test_a_single_waiting_request_goes_alone_even_when_merging() -> None:
    _, session, interleaver = run([lambda s: ask(s, "f", "a") + ask(s, "f", "b")])
    assert [seen[0] for seen in session.seen] == ["alone", "alone"]
    assert interleaver.exchanges == 2


@pytest.mark.parametrize(("merge", "exchanges"), [(True, 1), (False, 4)], ids=["merged", "alone"])
def test_exchanges_count_round_trips(merge: bool, exchanges: int) -> None:
    # merged, each task's second request joins the exchange its first is answered in
    tasks = [lambda s: ask(s, "f", "a") + ask(s, "f", "b"), lambda s: ask(s, "g", "c") + ask(s, "g", "d")]
    _, _, interleaver = run(tasks, merge=merge)
    assert interleaver.exchanges == exchanges


def test_a_check_sees_the_sessions_time_left_and_limit_notes() -> None:
    results, _, _ = run([lambda s: (s.remaining(), s.limit_notes())])
    assert results == [(42.0, " [a note]")]


def test_a_reply_that_is_not_results_goes_back_to_its_check_unchanged() -> None:
    results, _, _ = run([lambda s: ask(s, "f", "big"), lambda s: ask(s, "g", "a")])
    assert results == ["too large: 9", ["a"]]


# ---------------------------------------------------------------------------------------- broken limits


@pytest.mark.parametrize("merge", [True, False], ids=["merged", "alone"])
@pytest.mark.parametrize("limit", LIMIT_KINDS)
def test_a_function_that_broke_a_limit_is_not_run_again_with_the_reason_naming_the_check(limit: str,
                                                                                          merge: bool) -> None:
    tasks = [lambda s: ask(s, "g", "a"), lambda s: ask(s, "f", f"{limit}!"), lambda s: ask(s, "f", "b")]
    results, session, interleaver = run(tasks, merge=merge, titles=["one", "two", "three"], call_timeout_s=2.5)
    reason = NOT_RUN[limit].format(function="f", check="two", seconds=2.5)
    assert results == [["a"], f"{limit}: {limit}! during f({limit}!)", f"{limit}: not run: {reason}"]
    assert [seen[4] for seen in session.seen] == [["a"], [f"{limit}!"]]
    assert set(interleaver.broken) == {"f"}


def test_a_check_that_asks_again_after_its_request_failed_goes_on_in_later_exchanges() -> None:
    # The failed request ended its exchange: what the check asks next cannot join it, and goes on its own.
    tasks = [lambda s: ask(s, "g", "a"), lambda s: [ask(s, "f", "!"), ask(s, "f", "b"), ask(s, "f", "c")]]
    results, session, _ = run(tasks)
    assert results == [["a"], ["None: ! during f(!)", ["b"], ["c"]]]
    assert [(seen[0], seen[4]) for seen in session.seen] == [
        ("merged", ["a"]), ("merged", ["!"]), ("alone", ["b"]), ("alone", ["c"])]


def test_the_reason_of_a_function_that_ran_out_of_time_gives_the_call_limit() -> None:
    results, _, _ = run([lambda s: ask(s, "f", "time!"), lambda s: ask(s, "f", "a")], merge=False,
                        titles=["first", "second"], call_timeout_s=2.5)
    assert results[1] == "time: not run: f did not return within 2.5 s in check ‘first’ (an endless loop?)"


def test_a_check_without_a_title_is_named_by_its_position() -> None:
    tasks = [lambda s: ask(s, "g", "a"), lambda s: ask(s, "f", "crash!"), lambda s: ask(s, "f", "b")]
    results, _, _ = run(tasks, titles=["one"])
    assert results[2] == "crash: not run: f ended the worker process in check ‘#2’"


def test_the_first_break_of_a_function_is_the_one_reported() -> None:
    tasks = [lambda s: ask(s, "f", "memory!"), lambda s: ask(s, "f", "crash!"), lambda s: ask(s, "f", "a")]
    results, session, _ = run(tasks, merge=False, titles=["one", "two", "three"])
    assert results[1:] == ["memory: not run: f ran out of memory in check ‘one’"] * 2
    assert len(session.seen) == 1


@pytest.mark.parametrize("merge", [True, False], ids=["merged", "alone"])
def test_a_failure_that_is_not_a_limit_bars_nothing(merge: bool) -> None:
    tasks = [lambda s: ask(s, "f", "!"), lambda s: ask(s, "f", "a")]
    results, _, interleaver = run(tasks, merge=merge)
    assert results == ["None: ! during f(!)", ["a"]]
    assert interleaver.broken == {}


def test_a_request_naming_no_function_is_never_barred() -> None:
    tasks = [lambda s: ask(s, "", "crash!"), lambda s: ask(s, "", "a")]
    results, _, interleaver = run(tasks, merge=False)
    assert results == ["crash: crash! during (crash!)", ["a"]]
    assert interleaver.broken == {}


# ----------------------------------------------------------------------------------------- a check's time


def test_a_checks_seconds_are_its_calls_plus_every_stretch_of_its_own_work() -> None:
    def task(s: TaskSession) -> None:
        time.sleep(0.05)
        ask(s, "f", "a", "b")
        time.sleep(0.05)
        ask(s, "f", "c")

    session = ScriptedSession(duration_ms=1e6)  # 1000 s per call, as the worker measured it
    done: list[float] = []
    Interleaver(session=session, limits=Limits()).run([task], lambda index, result, seconds: done.append(seconds))
    (seconds,) = done
    assert 3000.1 <= seconds < 3000.5


def test_a_check_that_pauses_with_anything_but_a_request_is_a_grader_bug() -> None:
    def task(s: TaskSession) -> None:
        s.scheduler.switch(42)

    with pytest.raises(RuntimeError, match="^a check paused with int instead of a request$"):
        run([task])


def test_a_task_session_pauses_only_its_own_greenlet() -> None:
    seen: list[Any] = []

    def task(s: TaskSession) -> None:
        seen.append(s.scheduler is greenlet.getcurrent().parent)

    run([task])
    assert seen == [True]


# ------------------------------------------------------------------------------------------- the learner's Stop


@dataclass
class StoppingSession(ScriptedSession):
    """A call tagged "stop" ends the grading the way the Stop button does."""

    def _answer(self, path: str, request: Request) -> Answer:
        if any(call.arguments == "stop" for call in request.message.calls):
            what = request.what if isinstance(request.what, str) else request.what()
            self.seen.append((path, request.function, request.timeout, what, ["stop"]))
            raise GradingStopped(what, where=" (line 7)")
        return super()._answer(path, request)


def stopped_run(tasks: Sequence[Callable[[TaskSession], Any]], *, merge: bool = True
                ) -> tuple[list[tuple[int, Any]], StoppingSession]:
    session = StoppingSession()
    done: list[tuple[int, Any]] = []

    def on_stopped(index: int, stop: GradingStopped | None) -> Any:
        return ("stopped", index, None if stop is None else f"{stop.what}{stop.where}")

    Interleaver(session=session, limits=Limits(), merge=merge).run(
        tasks, lambda index, result, seconds: done.append((index, result)), on_stopped=on_stopped)
    return done, session


@pytest.mark.parametrize("merge", [True, False], ids=["merged", "alone"])
def test_a_stop_keeps_the_tasks_done_and_names_the_one_whose_request_was_running(merge: bool) -> None:
    done, session = stopped_run([lambda s: ask(s, "f", "a"), lambda s: ask(s, "g", "stop"),
                                 lambda s: ask(s, "h", "c") + ask(s, "h", "d")], merge=merge)
    assert done == [(0, ["a"]), (1, ("stopped", 1, "g(stop) (line 7)")), (2, ("stopped", 2, None))]
    # Nothing is asked of the worker once it was stopped: h's request never goes, nor its second one.
    assert [function for _, function, _, _, _ in session.seen] == ["f", "g"]


def test_a_stop_in_a_lone_request_names_that_request() -> None:
    done, _ = stopped_run([lambda s: ask(s, "f", "a") + ask(s, "g", "stop"), lambda s: "done"])
    assert done == [(0, ("stopped", 0, "g(stop) (line 7)")), (1, "done")]


def test_tasks_stopped_while_paused_are_unwound_before_their_verdict_is_reported() -> None:
    finished: list[str] = []

    def paused(session: TaskSession) -> Any:
        try:
            return ask(session, "h", "c")
        finally:
            finished.append("unwound")

    session, reported = StoppingSession(), []
    tasks = [lambda s: ask(s, "g", "stop"), paused]
    Interleaver(session=session, limits=Limits(), merge=False).run(
        tasks, lambda index, result, seconds: reported.append((index, list(finished))),
        on_stopped=lambda index, stop: "stopped")
    # Unwound at once, not when the garbage collector gets to its greenlet: its `finally` ran before the report.
    assert reported == [(0, ["unwound"]), (1, ["unwound"])]


@dataclass
class StopAfterTheLastReply(ScriptedSession):
    """Answers every request of a merged exchange, then reports the Stop (it came as the last reply arrived)."""

    def grouped_calls(self, requests: list[Request]) -> Iterator[Answer]:
        yield from super().grouped_calls(requests)
        raise GradingStopped("")


def test_a_stop_after_the_last_reply_of_a_merged_exchange_names_no_request_and_keeps_every_answer() -> None:
    done: list[tuple[int, Any]] = []
    Interleaver(session=StopAfterTheLastReply(), limits=Limits()).run(
        [lambda s: ask(s, "f", "a") + ask(s, "f", "b"), lambda s: ask(s, "g", "c") + ask(s, "g", "d")],
        lambda index, result, seconds: done.append((index, result)),
        on_stopped=lambda index, stop: ("stopped", stop is not None))
    assert done == [(0, ["a", "b"]), (1, ["c", "d"])]  # the second requests joined the exchange and were answered


@dataclass
class StopBeforeAJoinedRequest(ScriptedSession):
    """Answers the requests an exchange started with, then is stopped while the one that joined it runs."""

    def grouped_calls(self, requests: list[Request]) -> Iterator[Answer]:
        yield from super().grouped_calls(list(requests))
        raise GradingStopped("")


def test_a_stop_while_a_joined_request_runs_names_that_request() -> None:
    done: list[tuple[int, Any]] = []
    Interleaver(session=StopBeforeAJoinedRequest(), limits=Limits()).run(
        [lambda s: ask(s, "f", "a") + ask(s, "f", "b"), lambda s: ask(s, "g", "c")],
        lambda index, result, seconds: done.append((index, result)),
        on_stopped=lambda index, stop: ("stopped", stop is not None))
    assert done == [(0, ("stopped", True)), (1, ["c"])]


def test_unwinding_a_stopped_task_leaves_the_graders_grad_mode_as_it_was() -> None:
    def without_grad(session: TaskSession) -> Any:
        torch.set_grad_enabled(False)
        return ask(session, "h", "c")

    assert torch.is_grad_enabled()
    stopped_run([lambda s: ask(s, "g", "stop"), without_grad])
    assert torch.is_grad_enabled()


def test_without_a_stop_handler_the_stop_propagates() -> None:
    interleaver = Interleaver(session=StoppingSession(), limits=Limits())
    with pytest.raises(GradingStopped, match=r"stopped during g\(stop\) \(line 7\)"):
        interleaver.run([lambda s: ask(s, "g", "stop")], lambda index, result, seconds: None)
