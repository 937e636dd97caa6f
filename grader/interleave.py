"""Runs a submission's checks side by side, so that the calls they make share round trips to the worker.

A round trip costs far more than a small call (both processes wake up, and the judge's code runs with cold
caches), and most checks make only one or two batches of calls. So each check runs as a greenlet in the
grading thread: when it asks for calls it pauses, and once every unfinished check is paused, all their
requests go to the worker as one exchange. The worker answers each request as soon as it is done, and its
check resumes at once, while the worker goes on with the next: verdicts still appear one by one, and the judge's
work overlaps the worker's. A check that asks for more calls when it resumes joins the exchange in flight, after
the requests already in it, so the worker does not wait for every check of the exchange to be resumed. Checks run
one at a time and in order, exactly as if they ran one after another; only their waiting overlaps.

The requests of an exchange go to the worker one after another, each sent the moment the reply before it is read
(each has its own arena, which the judge compares before anything else can run in the worker; grader.session):
the worker never waits for a check to be resumed, yet no call can touch another call's memory unseen.

Merging changes no verdict: every request keeps its own time limit, counted from when it is sent, and a failure
(time, crash, limit, malformed reply) is charged to the request it happened in, exactly as if it had gone alone.
The requests after it are sent again, to a fresh worker.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import greenlet
import torch

from grader.calls import WorkerLost
from grader.cancel import GradingStopped
from grader.limits import Limits
from grader.messages import CallsReply, CallsRequest, Reply


@dataclass(frozen=True)
class Answer:
    """The worker's reply to one request, and what the judge saw happen to the request's own memory."""

    message: Reply
    blobs: list[bytearray]
    written: tuple[bool, ...] = ()  # per blob of the request: the worker changed its bytes (seen in the arena)


class CallSession(Protocol):
    """What a check's calls need (a TaskSession provides it to each check)."""

    def remaining(self) -> float: ...

    def limit_notes(self) -> str: ...

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str) -> Answer: ...


class GroupedCallSession(CallSession, Protocol):
    """The worker session the scheduler sends batches of requests to (grader.session.WorkerSession)."""

    def grouped_calls(self, requests: list[Request]) -> Iterator[Answer]:
        """The replies, in order; requests appended to `requests` while it is answered are sent too."""

    def start_advisory_budget(self) -> None:
        """The required checks are done: later requests spend the advisory budget (Limits.advisory_budget_s)."""


@dataclass
class Request:
    message: CallsRequest
    blobs: list[bytes]
    timeout: float
    what: str | Callable[[], str]
    function: str = ""  # the learner's function the request calls


# What a function did to be called no more in this grading, and how a later check that needs it says so.
NOT_RUN: dict[str, str] = {
    "time": "{function} did not return within {seconds:g} s in check ‘{check}’ (an endless loop?)",
    "memory": "{function} ran out of memory in check ‘{check}’",
    "processes": "{function} hit the limit on processes and threads in check ‘{check}’",
    "crash": "{function} ended the worker process in check ‘{check}’",
    "message_size": "{function} returned more than the worker may send in check ‘{check}’",
    "tampering": "{function} interfered with the grader in check ‘{check}’",
    "output": "{function} printed past the output limit in check ‘{check}’",
}


@dataclass
class TaskSession:
    """A check's view of the session: its calls pause the check until the scheduler has their reply."""

    session: GroupedCallSession
    scheduler: greenlet.greenlet
    call_seconds: float = 0.0  # time the learner's code spent in this check's calls, as the worker measured it

    def remaining(self) -> float:
        return self.session.remaining()

    def limit_notes(self) -> str:
        return self.session.limit_notes()

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str = "") -> Answer:
        reply = self.scheduler.switch(Request(request, blobs, timeout, what, function))
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply.message, CallsReply):
            self.call_seconds += sum(result.duration_ms for result in reply.message.results) / 1000
        return reply  # type: ignore[no-any-return]


Task = Callable[[TaskSession], Any]


@dataclass
class _Running:
    let: greenlet.greenlet
    session: TaskSession
    grad_enabled: bool = True  # torch's grad mode is per thread, so each check keeps its own across pauses
    own_seconds: float = 0.0
    result: Any = None
    done: bool = False
    request: Request | None = None  # asked for, not sent yet
    sent: Request | None = None  # sent, reply not in yet
    title: str = ""  # the check's title, for messages about it


@dataclass
class Interleaver:
    session: GroupedCallSession
    limits: Limits
    merge: bool = True  # False: every request alone, one round trip each (what merging must be equivalent to)
    exchanges: int = field(default=0, init=False)
    # A learner function that broke a limit once is not called again in this grading: function -> why not.
    broken: dict[str, WorkerLost] = field(default_factory=dict, init=False)
    _in_flight: _Running | None = field(default=None, init=False)  # whose request was running when stopped
    # The exchange in flight, while a later request can still join it: its entries and their requests, in order.
    _joining: tuple[list[_Running], list[Request]] | None = field(default=None, init=False)

    def run(self, tasks: Sequence[Task], on_done: Callable[[int, Any, float], None],
            titles: Sequence[str] = (), on_stopped: Callable[[int, GradingStopped | None], Any] | None = None,
            ) -> None:
        """Run every task to completion; on_done(index, result, seconds) in task order as soon as a task and all
        before it are done. `seconds` is the task's own time: its share of the judge plus its calls. `titles`
        name the tasks (checks) in messages about a function that broke a limit in one of them.

        When the session raises GradingStopped (the grading's Stop button), tasks already done are reported as
        they are, and every other task gets `on_stopped(index, stop)` as its result: `stop` for the task whose
        request was running then, None for the rest. Without `on_stopped` the GradingStopped propagates."""
        scheduler = greenlet.getcurrent()
        running = [
            _Running(let=greenlet.greenlet(task), session=TaskSession(self.session, scheduler),
                     title=titles[index] if index < len(titles) else f"#{index + 1}")
            for index, task in enumerate(tasks)
        ]
        reported = 0

        def report() -> None:
            nonlocal reported
            while reported < len(running) and running[reported].done:
                entry = running[reported]
                on_done(reported, entry.result, entry.own_seconds + entry.session.call_seconds)
                reported += 1

        try:
            for entry in running:
                self._resume(entry, entry.session)
            report()
            while batch := [entry for entry in running if entry.request is not None]:
                for entry in batch:
                    entry.sent, entry.request = entry.request, None
                for entry, reply in self._exchange(batch):  # a check resumes as soon as its own reply is in
                    entry.sent = None
                    self._resume(entry, reply)
                    self._join(entry)
                    report()
        except GradingStopped as stop:
            if on_stopped is None:
                raise
            for entry in running:
                if not entry.done:
                    entry.done, entry.result = True, on_stopped(running.index(entry),
                                                                stop if entry is self._in_flight else None)
                    self._unwind(entry)
            report()

    def _resume(self, entry: _Running, value: Any) -> None:
        outer_grad = torch.is_grad_enabled()
        torch.set_grad_enabled(entry.grad_enabled)
        started = time.perf_counter()
        try:
            out = entry.let.switch(value)
        finally:
            entry.own_seconds += time.perf_counter() - started
            entry.grad_enabled = torch.is_grad_enabled()
            torch.set_grad_enabled(outer_grad)
        if entry.let.dead:
            entry.done, entry.result = True, out
        elif isinstance(out, Request):
            entry.request = out
        else:  # a task may only pause through TaskSession.calls
            raise RuntimeError(f"a check paused with {type(out).__name__} instead of a request")

    @staticmethod
    def _unwind(entry: _Running) -> None:
        """End a paused check's greenlet now (GreenletExit at its pause), not whenever it is collected."""
        if not entry.let:  # not active: never started, or finished
            return
        outer_grad = torch.is_grad_enabled()
        try:
            entry.let.throw()
        except BaseException:  # noqa: BLE001, S110 - its verdict is already decided: stopped
            pass
        finally:
            torch.set_grad_enabled(outer_grad)

    # ------------------------------------------------------------------------------------------- exchanges

    def _exchange(self, batch: list[_Running]) -> Iterator[tuple[_Running, Answer | BaseException]]:
        """Each entry's reply (or the WorkerLost its request ended in), in order, as soon as it is known. A request
        for a function that already broke a limit is not sent: it gets that function's "not run" at once."""
        queue = list(batch)
        while queue:
            for entry in [entry for entry in queue if self._not_run(entry) is not None]:
                queue.remove(entry)
                yield entry, self._not_run(entry)  # type: ignore[misc]
            if not queue:
                return
            if len(queue) == 1 or not self.merge:
                entry = queue.pop(0)
                self._in_flight = entry
                reply = self._alone(entry.sent)
                self._note(entry, reply)
                yield entry, reply
                continue
            requests = [entry.sent for entry in queue if entry.sent is not None]  # every queued entry was sent
            self._joining = (queue, requests)
            replies = self._merged(requests)
            answered = 0
            try:
                for reply in replies:
                    yield queue[answered], reply
                    answered += 1
            except GradingStopped:  # raised while waiting for reply number `answered`, or after the last one
                self._in_flight = queue[answered] if answered < len(queue) else None
                raise
            except WorkerLost as exc:
                self._joining = None
                self._note(queue[answered], exc)
                yield queue[answered], exc
                answered += 1
            finally:
                self._joining = None
            queue = queue[answered:]

    def _join(self, entry: _Running) -> None:
        """A check that asked for more calls when its reply came in: its request joins the exchange in flight,
        sent as soon as the requests before it are answered, so the worker need not wait for the exchange to end
        and the judge to resume every check. A request for a function that broke a limit is left for the next
        exchange, which answers it "not run"."""
        if entry.request is None or self._joining is None:
            return
        entry.sent, entry.request = entry.request, None
        if self._not_run(entry) is not None:
            entry.sent, entry.request = None, entry.sent
            return
        entries, requests = self._joining
        entries.append(entry)
        requests.append(entry.sent)

    def _note(self, entry: _Running, reply: Answer | BaseException) -> None:
        """Remember a function that broke a limit (a check's calls use one function per request)."""
        assert entry.sent is not None  # only requests that were sent are answered
        if not isinstance(reply, WorkerLost) or reply.limit not in NOT_RUN:
            return
        function = entry.sent.function
        # A function's first break is its only one: _exchange sends no request for a function already in `broken`.
        if function:
            reason = NOT_RUN[reply.limit].format(function=function, check=entry.title,
                                                 seconds=self.limits.call_timeout_s)
            self.broken[function] = WorkerLost(f"not run: {reason}", limit=reply.limit)

    def _not_run(self, entry: _Running) -> WorkerLost | None:
        """Why the request is not sent, if it calls a function that broke a limit: its own, or one of the learner's
        functions a helper of the problem is handed to drive."""
        assert entry.sent is not None  # asked only of requests about to be sent
        for name in (entry.sent.function, *(used for call in entry.sent.message.calls for used in call.uses)):
            if name in self.broken:  # never "": _note records only named functions
                return self.broken[name]
        return None

    def _alone(self, request: Request | None) -> Answer | BaseException:
        assert request is not None
        self.exchanges += 1
        try:
            return self.session.calls(request.message, request.blobs, timeout=request.timeout, what=request.what,
                                      function=request.function)
        except WorkerLost as exc:
            return exc

    def _merged(self, requests: list[Request]) -> Iterator[Answer]:
        """One exchange of `requests`, a list that requests joining it are appended to while it is answered."""
        self.exchanges += 1
        return self.session.grouped_calls(requests)


__all__ = ["Answer", "CallSession", "GroupedCallSession", "Interleaver", "Request", "TaskSession"]
