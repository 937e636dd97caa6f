"""grader.interleave: checks run side by side and share exchanges, without changing what any check sees."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch

from grader.calls import WorkerLost
from grader.interleave import Answer, Interleaver, Request, TaskSession
from grader.limits import Limits
from grader.messages import CallOutcome, CallsReply, CallsRequest, RequestedCall


@dataclass
class FakeSession:
    """Answers each call with its own tag; a call tagged "crash" kills the worker while it runs."""

    exchanges: list[dict[str, Any]] = field(default_factory=list)
    time_left: float = 60.0
    log: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)

    def remaining(self) -> float:
        return self.time_left

    def limit_notes(self) -> str:
        return ""

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str = "") -> Answer:
        return next(self.grouped_calls([Request(request, blobs, timeout, what, function)]))

    def grouped_calls(self, requests: list[Request]) -> Iterator[Answer]:
        exchange: dict[str, list[Any]] = {"calls": [], "blobs": [], "groups": [], "timeouts": []}
        self.exchanges.append(exchange)
        for request in requests:  # one after another, as the worker session sends them, joined ones included
            exchange["calls"] += [{"tag": call.arguments} for call in request.message.calls]
            exchange["blobs"].append(list(request.blobs))
            exchange["groups"].append(len(request.message.calls))
            exchange["timeouts"].append(request.timeout)
            tags = [call.arguments for call in request.message.calls]  # a call's "arguments" are its tag here
            self.sent.extend(tags)
            if "crash" in tags:
                raise WorkerLost(f"the worker process crashed during {request.what}",
                                 limit="crash" if request.function else None)
            results = tuple(CallOutcome(value=tag, duration_ms=2.0) for tag in tags)
            self.log.append("reply " + ",".join(tags))
            yield Answer(CallsReply(results), [], tuple(False for _ in request.blobs))

    def start_advisory_budget(self) -> None:
        """Part of GroupedCallSession; the interleaver never calls it (the judge does)."""


def ask(session: TaskSession, *tags: str, blobs: tuple[bytes, ...] = ()) -> list[str]:
    request = CallsRequest(tuple(RequestedCall(function="f", arguments=tag) for tag in tags))
    answer = session.calls(request, list(blobs), timeout=5.0 * len(tags), what="a call")
    assert isinstance(answer.message, CallsReply)
    return [result.value for result in answer.message.results]


def run(tasks: list[Callable[[TaskSession], Any]], session: FakeSession | None = None,
        **limits: Any) -> tuple[list[tuple[int, Any, float]], FakeSession, Interleaver]:
    session = session or FakeSession()
    done: list[tuple[int, Any, float]] = []
    interleaver = Interleaver(session=session, limits=Limits(**limits))
    interleaver.run(tasks, lambda index, result, seconds: done.append((index, result, seconds)))
    return done, session, interleaver


def test_checks_waiting_at_the_same_time_share_one_exchange_and_get_their_own_replies() -> None:
    def task(name: str) -> Callable[[TaskSession], Any]:
        return lambda s: ask(s, f"{name}1", f"{name}2") + ask(s, f"{name}3")

    done, session, interleaver = run([task("a"), task("b"), task("c")])
    assert [result for _, result, _ in done] == [[f"{n}1", f"{n}2", f"{n}3"] for n in "abc"]
    # each check's second request joins the exchange as soon as its first reply is in
    assert [[call["tag"] for call in e["calls"]] for e in session.exchanges] == [
        ["a1", "a2", "b1", "b2", "c1", "c2", "a3", "b3", "c3"],
    ]
    assert interleaver.exchanges == 1


def test_requests_of_one_exchange_keep_their_own_tensors() -> None:
    # Each request's tensors go in an arena of its own, so what one check's call writes is seen as its own.
    tasks = [lambda s: ask(s, "a", blobs=(b"x", b"y")), lambda s: ask(s, "b", blobs=(b"z",)),
             lambda s: ask(s, "c")]
    _, session, _ = run(tasks)
    (exchange,) = session.exchanges
    assert exchange["blobs"] == [[b"x", b"y"], [b"z"], []]


def test_results_are_reported_in_check_order_as_soon_as_those_before_are_done() -> None:
    order: list[str] = []

    def slow(s: TaskSession) -> str:
        ask(s, "1")
        ask(s, "2")
        order.append("slow finished")
        return "slow"

    def quick(s: TaskSession) -> str:
        order.append("quick finished")
        return "quick"

    done, _, _ = run([slow, quick])
    assert order == ["quick finished", "slow finished"]
    assert [(index, result) for index, result, _ in done] == [(0, "slow"), (1, "quick")]


def test_a_failure_is_charged_to_its_own_check_and_the_checks_after_it_are_sent_again() -> None:
    def crashes(s: TaskSession) -> str:
        try:
            ask(s, "crash")
        except WorkerLost as exc:
            return f"lost: {exc.reason}"
        return "no crash"

    tasks = [lambda s: ask(s, "a"), crashes, lambda s: ask(s, "b"), lambda s: ask(s, "c")]
    done, session, interleaver = run(tasks)
    assert [result for _, result, _ in done] == [
        ["a"], "lost: the worker process crashed during a call", ["b"], ["c"],
    ]
    assert [[call["tag"] for call in e["calls"]] for e in session.exchanges] == [
        ["a", "crash"],  # "a" is answered, then the worker dies in the crashing check's group
        ["b", "c"],  # the rest go again, together, to a fresh worker
    ]
    assert interleaver.exchanges == 2


def test_a_check_resumes_as_soon_as_its_own_reply_is_in() -> None:
    """So its verdict is out while the worker is still busy with the checks after it; its next request joins
    the exchange, after the requests already in it."""
    session = FakeSession()

    def task(name: str, rounds: int) -> Callable[[TaskSession], Any]:
        def run_rounds(s: TaskSession) -> None:
            for number in range(1, rounds + 1):
                ask(s, f"{name}{number}")
                session.log.append(f"{name} resumed")

        return run_rounds

    done, _, _ = run([task("a", 2), task("b", 1)], session)
    assert session.log == ["reply a1", "a resumed", "reply b1", "b resumed", "reply a2", "a resumed"]
    assert [e["groups"] for e in session.exchanges] == [[1, 1, 1]]
    assert [index for index, _, _ in done] == [0, 1]


def test_every_group_keeps_its_own_time_limit() -> None:
    _, session, _ = run([lambda s: ask(s, "a", "b", "c"), lambda s: ask(s, "d")], call_timeout_s=2.0)
    assert session.exchanges[0]["timeouts"] == [15.0, 5.0]


def test_each_check_keeps_its_own_grad_mode_across_pauses() -> None:
    seen: dict[str, bool] = {}

    def without_grad(s: TaskSession) -> None:
        with torch.no_grad():
            ask(s, "a")
            seen["inside no_grad after a pause"] = torch.is_grad_enabled()

    def plain(s: TaskSession) -> None:
        ask(s, "b")
        seen["other check"] = torch.is_grad_enabled()

    run([without_grad, plain])
    assert seen == {"inside no_grad after a pause": False, "other check": True}
    assert torch.is_grad_enabled()


def test_a_checks_time_counts_its_own_calls_not_the_others() -> None:
    done, _, _ = run([lambda s: ask(s, "a", "b"), lambda s: ask(s, "c")])
    (_, _, first), (_, _, second) = done
    assert first == pytest.approx(0.004, abs=0.003)  # two calls of 2 ms each, plus its own few microseconds
    assert second == pytest.approx(0.002, abs=0.003)


def test_without_merging_every_request_goes_alone() -> None:
    session = FakeSession()
    done: list[Any] = []
    interleaver = Interleaver(session=session, limits=Limits(), merge=False)
    interleaver.run([lambda s: ask(s, "a"), lambda s: ask(s, "b"), lambda s: ask(s, "c")],
                    lambda i, r, t: done.append(r))
    assert done == [["a"], ["b"], ["c"]]
    assert [[call["tag"] for call in e["calls"]] for e in session.exchanges] == [["a"], ["b"], ["c"]]  # in order


def ask_function(session: TaskSession, function: str, *tags: str) -> list[str]:
    request = CallsRequest(tuple(RequestedCall(function=function, arguments=tag) for tag in tags))
    answer = session.calls(request, [], timeout=5.0 * len(tags), what=f"{function}()", function=function)
    assert isinstance(answer.message, CallsReply)
    return [result.value for result in answer.message.results]


def outcome(call: Callable[[], list[str]]) -> str | list[str]:
    try:
        return call()
    except WorkerLost as exc:
        return f"{exc.limit}: {exc.reason}"


def test_a_function_that_broke_a_limit_is_not_called_again_and_the_others_still_run() -> None:
    tasks = [
        lambda s: outcome(lambda: ask_function(s, "f", "crash")),
        lambda s: outcome(lambda: ask_function(s, "f", "a")),
        lambda s: outcome(lambda: ask_function(s, "g", "b")),
        lambda s: outcome(lambda: ask_function(s, "g", "c") + ask_function(s, "f", "d")),
    ]
    session = FakeSession()
    done: list[Any] = []
    interleaver = Interleaver(session=session, limits=Limits())
    interleaver.run(tasks, lambda index, result, seconds: done.append(result), titles=["one", "two", "three", "four"])
    assert done == [
        "crash: the worker process crashed during f()",
        "crash: not run: f ended the worker process in check ‘one’",
        ["b"],
        "crash: not run: f ended the worker process in check ‘one’",
    ]
    assert session.sent == ["crash", "b", "c"]  # f is not called again in this grading


def ask_helper(session: TaskSession, helper: str, uses: tuple[str, ...], tag: str) -> list[str]:
    request = CallsRequest((RequestedCall(function=helper, arguments=tag, module="helpers", uses=uses),))
    answer = session.calls(request, [], timeout=5.0, what=f"{helper}()", function=helper)
    assert isinstance(answer.message, CallsReply)
    return [result.value for result in answer.message.results]


def test_a_helper_that_drives_a_function_which_broke_a_limit_is_not_sent() -> None:
    # A problem's helper runs the learner's functions it is handed: one of them broke a limit, so the helper
    # would only run into it again (a looping function: another whole call limit).
    tasks = [
        lambda s: outcome(lambda: ask_function(s, "f", "crash")),
        lambda s: outcome(lambda: ask_helper(s, "run", ("g", "f"), "a")),
        lambda s: outcome(lambda: ask_helper(s, "run", ("g",), "b")),
    ]
    session = FakeSession()
    done: list[Any] = []
    interleaver = Interleaver(session=session, limits=Limits())
    interleaver.run(tasks, lambda index, result, seconds: done.append(result), titles=["one", "two", "three"])
    assert done == [
        "crash: the worker process crashed during f()",
        "crash: not run: f ended the worker process in check ‘one’",
        ["b"],
    ]
    assert session.sent == ["crash", "b"]
