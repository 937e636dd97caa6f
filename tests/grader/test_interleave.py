"""grader.interleave: checks run side by side and share exchanges, without changing what any check sees."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch

from grader.calls import WorkerLost
from grader.interleave import Interleaver, TaskSession
from grader.limits import Limits


@dataclass
class FakeSession:
    """Answers each call with its own tag; a call tagged "crash" kills the exchange it is in."""

    exchanges: list[dict[str, Any]] = field(default_factory=list)
    time_left: float = 60.0

    def remaining(self) -> float:
        return self.time_left

    def limit_notes(self) -> str:
        return ""

    def calls(self, header: dict[str, Any], blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str]) -> tuple[dict[str, Any], list[bytearray]]:
        self.exchanges.append({"calls": header["calls"], "blobs": list(blobs), "timeout": timeout})
        if any(call["tag"] == "crash" for call in header["calls"]):
            raise WorkerLost("the worker process crashed")
        results = [{"value": call["tag"], "duration_ms": 2.0} for call in header["calls"]]
        return {"op": "results", "results": results}, [bytearray(b) for b in blobs]


def ask(session: TaskSession, *tags: str, blobs: tuple[bytes, ...] = ()) -> list[str]:
    header = {"op": "calls", "calls": [{"function": "f", "tag": tag} for tag in tags]}
    reply, _ = session.calls(header, list(blobs), timeout=5.0 * len(tags), what="a call")
    return [result["value"] for result in reply["results"]]


def run(tasks: list[Callable[[TaskSession], Any]], session: FakeSession | None = None,
        **limits: Any) -> tuple[list[tuple[int, Any, float]], FakeSession, Interleaver]:
    session = session or FakeSession()
    done: list[tuple[int, Any, float]] = []
    interleaver = Interleaver(session=session, limits=Limits(**limits))
    interleaver.run(tasks, lambda index, result, seconds: done.append((index, result, seconds)))
    return done, session, interleaver


def test_checks_waiting_at_the_same_time_share_one_exchange_and_get_their_own_replies():
    def task(name: str) -> Callable[[TaskSession], Any]:
        return lambda s: ask(s, f"{name}1", f"{name}2") + ask(s, f"{name}3")

    done, session, interleaver = run([task("a"), task("b"), task("c")])
    assert [result for _, result, _ in done] == [[f"{n}1", f"{n}2", f"{n}3"] for n in "abc"]
    assert [[call["tag"] for call in e["calls"]] for e in session.exchanges] == [
        ["a1", "a2", "b1", "b2", "c1", "c2"],
        ["a3", "b3", "c3"],
    ]
    assert interleaver.exchanges == 2


def test_merged_calls_number_their_blobs_from_where_their_check_starts():
    tasks = [lambda s: ask(s, "a", blobs=(b"x", b"y")), lambda s: ask(s, "b", blobs=(b"z",)),
             lambda s: ask(s, "c")]
    _, session, _ = run(tasks)
    (exchange,) = session.exchanges
    assert exchange["blobs"] == [b"x", b"y", b"z"]
    assert [call.get("blob_base", 0) for call in exchange["calls"]] == [0, 2, 3]


def test_results_are_reported_in_check_order_as_soon_as_those_before_are_done():
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


def test_a_failed_merged_exchange_is_sent_again_per_check_and_blames_only_the_culprit():
    def crashes(s: TaskSession) -> str:
        try:
            ask(s, "crash")
        except WorkerLost as exc:
            return f"lost: {exc.reason}"
        return "no crash"

    done, session, interleaver = run([lambda s: ask(s, "a"), crashes, lambda s: ask(s, "b") + ask(s, "c")])
    assert [result for _, result, _ in done] == [["a"], "lost: the worker process crashed", ["b", "c"]]
    assert [[call["tag"] for call in e["calls"]] for e in session.exchanges] == [
        ["a", "crash", "b"],  # merged: fails as a whole
        ["a"], ["crash"], ["b"],  # then alone
        ["c"],
    ]
    assert interleaver.merge is False  # after one failure the submission is graded a request at a time


def test_a_merged_exchange_may_take_only_one_calls_time_limit():
    _, session, _ = run([lambda s: ask(s, "a", "b", "c"), lambda s: ask(s, "d")], call_timeout_s=2.0)
    assert session.exchanges[0]["timeout"] == 2.0


def test_a_single_request_keeps_its_own_time_limit():
    _, session, _ = run([lambda s: ask(s, "a", "b", "c")], call_timeout_s=2.0)
    assert session.exchanges[0]["timeout"] == 15.0


def test_each_check_keeps_its_own_grad_mode_across_pauses():
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


def test_a_checks_time_counts_its_own_calls_not_the_others():
    done, _, _ = run([lambda s: ask(s, "a", "b"), lambda s: ask(s, "c")])
    (_, _, first), (_, _, second) = done
    assert first == pytest.approx(0.004, abs=0.003)  # two calls of 2 ms each, plus its own few microseconds
    assert second == pytest.approx(0.002, abs=0.003)
