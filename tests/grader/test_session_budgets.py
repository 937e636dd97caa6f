"""A session's budgets: the total time limit while the required checks run, then the advisory budget. Both are
spent by the learner's calls as the child measures them (a busy machine spends no more), within a wall-clock
ceiling of `wall_ceiling_factor` times the budget."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from grader.calls import WorkerLost
from grader.child import Outgoing
from grader.interleave import Answer, Request
from grader.limits import Limits
from grader.messages import CallOutcome, CallsReply, CallsRequest, Loaded, LoadRequest, RequestedCall
from grader.session import ADVISORY_BUDGET, TOTAL_BUDGET, Budget, WorkerSession

LIMITS = Limits(call_timeout_s=2.0, total_timeout_s=10.0, advisory_budget_s=3.0, wall_ceiling_factor=4.0)


@dataclass
class Parcel:
    """What stands for a request's arena: the request, and whether the session let go of it."""

    request: CallsRequest
    closed: bool = False

    def close(self) -> None:
        self.closed = True


@dataclass
class TimedChild:
    """Answers each call as if it took `call_ms` of the learner's time; records each wait it was given."""

    call_ms: float = 1000.0
    cgroup: object | None = None
    key: bytes = b"\0" * 32
    exit_info: object | None = None
    cancel: object | None = None
    waits: list[tuple[float, str | None]] = field(default_factory=list)
    ended: int = 0
    parcels: list[Parcel] = field(default_factory=list)

    def send_load(self, request: LoadRequest, **_: Any) -> Answer:
        return Answer(message=Loaded(ok=True, functions=("f",), raised=None, output=""), blobs=[])

    def exchange(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
                 what: str | Callable[[], str], budget: str | None = None) -> Answer:
        self.waits.append((timeout, budget))
        replies = tuple(CallOutcome(value=None, duration_ms=self.call_ms) for _ in request.calls)
        return Answer(message=CallsReply(replies), blobs=[])

    def send(self, request: CallsRequest, blobs: list[bytes], *, deadline: float, timeout: float,
             what: str | Callable[[], str], budget: str | None = None) -> Parcel:
        return self.transmit(self.prepare(request, blobs))

    def prepare(self, request: CallsRequest, blobs: list[bytes]) -> Outgoing:
        parcel = Parcel(request)
        self.parcels.append(parcel)
        return Outgoing(arena=parcel, parts=[])  # type: ignore[arg-type]

    def transmit(self, outgoing: Outgoing, **_: Any) -> Parcel:
        return outgoing.arena  # type: ignore[return-value]

    def settle_deadline(self, sent: float, deadline: float) -> None:
        pass

    def receive(self, arena: Parcel, *, deadline: float, timeout: float, what: str | Callable[[], str],
                budget: str | None = None, then: Callable[[], object] | None = None) -> Answer:
        self.waits.append((timeout, budget))
        if then is not None:  # the next request goes out before this reply is parsed (and charged)
            then()
        arena.close()
        replies = tuple(CallOutcome(value=None, duration_ms=self.call_ms) for _ in arena.request.calls)
        return Answer(message=CallsReply(replies), blobs=[])

    def end(self) -> None:
        self.ended += 1


@dataclass
class OneChildTemplate:
    child: TimedChild

    def alive(self) -> bool:
        return True

    def take_child(self, limits: Limits) -> TimedChild:
        return self.child


def session(child: TimedChild, limits: Limits = LIMITS) -> WorkerSession:
    made = WorkerSession(pool=None, template=OneChildTemplate(child), code="", limits=limits)  # type: ignore[arg-type]
    made.load()
    return made


def request(calls: int = 1) -> CallsRequest:
    return CallsRequest(tuple(RequestedCall(function="f", arguments={"tuple": [{"tuple": []}, {"dict": []}]}, grads=(),
                                   grad_output=None) for _ in range(calls)))


def call(made: WorkerSession, calls: int = 1) -> Answer:
    return made.calls(request(calls), [], timeout=LIMITS.call_timeout_s * calls, what="f()", function="f")


def test_a_budget_names_itself_with_its_seconds() -> None:
    assert Budget(10.0, TOTAL_BUDGET).describe() == "total time limit 10 s for the whole submission"
    assert Budget(2.5, ADVISORY_BUDGET).describe() == "advisory budget of 2.5 s"


def test_the_calls_measured_time_spends_the_total_time_limit() -> None:
    made = session(TimedChild(call_ms=1500.0))
    assert made.remaining() == pytest.approx(10.0, abs=0.05)
    call(made, calls=2)
    assert made.remaining() == pytest.approx(7.0, abs=0.05)
    list(made.grouped_calls([Request(request(), [], 2.0, "f()", "f"), Request(request(), [], 2.0, "f()", "f")]))
    assert made.remaining() == pytest.approx(4.0, abs=0.05)


def test_a_request_waits_its_calls_limit_and_the_child_pushes_it_back_on_a_busy_machine() -> None:
    child = TimedChild(call_ms=0.0)
    made = session(child)
    call(made, calls=2)
    list(made.grouped_calls([Request(request(), [], 2.0, "f()", "f")]))
    assert child.waits == [(2 * 2.0, None), (2.0, None)]


def test_a_pipelined_request_waits_what_is_left_once_the_reply_before_it_is_charged() -> None:
    # The second request goes out before the first reply is parsed; its wait is settled after that reply's 9 s
    child = TimedChild(call_ms=9000.0)
    made = session(child)
    list(made.grouped_calls([Request(request(), [], 2.0, "f()", "f"), Request(request(), [], 2.0, "f()", "f")]))
    (first, second) = child.waits
    assert first == (2.0, None)
    assert second[0] == pytest.approx(1.0, abs=0.05)
    assert second[1] == "total time limit 10 s for the whole submission"


def test_a_pipelined_request_sent_after_the_budget_ran_out_ends_the_child_unanswered() -> None:
    child = TimedChild(call_ms=10_000.0)
    made = session(child)
    answers = made.grouped_calls([Request(request(), [], 2.0, "f()", "f"), Request(request(), [], 2.0, "f()", "f")])
    with pytest.raises(WorkerLost) as lost:
        next(answers)  # the first reply is in, but the second request finds no time left: as if never sent
    assert (str(lost.value), lost.value.limit) == ("total time limit 10 s for the whole submission used up",
                                                   "total_time")
    assert child.ended == 1 and len(child.waits) == 1
    assert [parcel.closed for parcel in child.parcels] == [True, True]


def test_a_request_waits_no_longer_than_the_budget_left() -> None:
    child = TimedChild(call_ms=8000.0)
    made = session(child)
    call(made)  # 2 s of the total limit left
    call(made)
    timeout, budget = child.waits[1]
    assert timeout == pytest.approx(2.0, abs=0.05)
    assert budget == "total time limit 10 s for the whole submission"


def test_a_spent_budget_ends_the_child_and_says_which_budget() -> None:
    child = TimedChild(call_ms=10_000.0)
    made = session(child)
    call(made)
    with pytest.raises(WorkerLost) as lost:
        call(made)
    assert (str(lost.value), lost.value.limit) == ("total time limit 10 s for the whole submission used up",
                                                   "total_time")
    assert child.ended == 1


def test_the_advisory_budget_starts_afresh_once_the_required_checks_are_done() -> None:
    child = TimedChild(call_ms=10_000.0)
    made = session(child)
    call(made)
    assert made.remaining() <= 0
    made.start_advisory_budget()
    assert made.remaining() == pytest.approx(3.0, abs=0.05)
    child.call_ms = 3000.0
    call(made)
    with pytest.raises(WorkerLost) as lost:
        call(made)
    assert (str(lost.value), lost.value.limit) == ("advisory budget of 3 s used up", "total_time")


def test_a_zero_advisory_budget_runs_no_advisory_call() -> None:
    made = session(TimedChild(), Limits(advisory_budget_s=0.0))
    made.start_advisory_budget()
    assert made.remaining() <= 0


def test_the_wall_clock_spends_a_budget_at_its_ceiling(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr("grader.session.time.monotonic", lambda: now[0])
    made = session(TimedChild(call_ms=0.0))
    made.start_advisory_budget()
    now[0] += 3.0 * 4.0 - 1.0  # nothing measured, but the wall clock is 1 s short of the ceiling
    assert made.remaining() == pytest.approx(0.25)
    now[0] += 1.0
    assert made.remaining() <= 0
