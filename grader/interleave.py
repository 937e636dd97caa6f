"""Runs a submission's checks side by side, so that the calls they make share round trips to the worker.

A round trip costs far more than a small call (both processes wake up, and the judge's code runs with cold
caches), and most checks make only one or two batches of calls. So each check runs as a greenlet in the
grading thread: when it asks for calls it pauses, and once every unfinished check is paused, all their
requests go to the worker in one exchange. Checks still run one at a time and in order, exactly as if they ran
one after another; only their waiting overlaps.

A merged exchange is an optimisation, never a change of verdict: if it fails in any way (the worker died,
hung, sent too much or sent nonsense), each check's request is sent again on its own, on a fresh worker where
needed, so a failure is charged to exactly the check whose call caused it, as without merging. A merged
exchange may take at most one call's time limit; a submission that exceeds it once is graded one request at a
time from then on, so hanging code loses at most that much of its total time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import greenlet
import torch

from grader.calls import WorkerLost
from grader.limits import Limits

Reply = tuple[dict[str, Any], list[bytearray]]


class CallSession(Protocol):
    """What a check's calls need from the worker session (grader.pool.WorkerSession provides it)."""

    def remaining(self) -> float: ...

    def limit_notes(self) -> str: ...

    def calls(self, header: dict[str, Any], blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str]) -> Reply: ...


@dataclass
class Request:
    header: dict[str, Any]
    blobs: list[bytes]
    timeout: float
    what: str | Callable[[], str]


@dataclass
class TaskSession:
    """A check's view of the session: its calls pause the check until the scheduler has their reply."""

    session: CallSession
    scheduler: greenlet.greenlet
    call_seconds: float = 0.0  # time the learner's code spent in this check's calls, as the worker measured it

    def remaining(self) -> float:
        return self.session.remaining()

    def limit_notes(self) -> str:
        return self.session.limit_notes()

    def calls(self, header: dict[str, Any], blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str]) -> Reply:
        reply = self.scheduler.switch(Request(header, blobs, timeout, what))
        if isinstance(reply, BaseException):
            raise reply
        results = reply[0].get("results")
        if isinstance(results, list):
            self.call_seconds += sum(float(r.get("duration_ms") or 0) for r in results if isinstance(r, dict)) / 1000
        return reply  # type: ignore[no-any-return]


Task = Callable[[TaskSession], Any]


@dataclass
class _Running:
    task: Task
    let: greenlet.greenlet
    session: TaskSession
    grad_enabled: bool = True  # torch's grad mode is per thread, so each check keeps its own across pauses
    own_seconds: float = 0.0
    result: Any = None
    done: bool = False
    request: Request | None = None


@dataclass
class Interleaver:
    session: CallSession
    limits: Limits
    merge: bool = True
    exchanges: int = field(default=0, init=False)

    def run(self, tasks: Sequence[Task], on_done: Callable[[int, Any, float], None]) -> None:
        """Run every task to completion; on_done(index, result, seconds) in task order as soon as a task and all
        before it are done. `seconds` is the task's own time: its share of the judge plus its calls."""
        scheduler = greenlet.getcurrent()
        running = [
            _Running(task=task, let=greenlet.greenlet(task), session=TaskSession(self.session, scheduler))
            for task in tasks
        ]
        reported = 0
        ready: list[tuple[_Running, Any]] = [(entry, entry.session) for entry in running]
        while ready:
            for entry, value in ready:
                self._resume(entry, value)
            while reported < len(running) and running[reported].done:
                entry = running[reported]
                on_done(reported, entry.result, entry.own_seconds + entry.session.call_seconds)
                reported += 1
            waiting = [entry for entry in running if entry.request is not None]
            replies = self._exchange([entry.request for entry in waiting if entry.request is not None])
            for entry in waiting:
                entry.request = None
            ready = list(zip(waiting, replies, strict=True))

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

    # ------------------------------------------------------------------------------------------- exchanges

    def _exchange(self, requests: list[Request]) -> list[Reply | BaseException]:
        if len(requests) > 1 and self.merge:
            merged = self._merged(requests)
            if merged is not None:
                return merged
        return [self._alone(request) for request in requests]

    def _alone(self, request: Request) -> Reply | BaseException:
        self.exchanges += 1
        try:
            return self.session.calls(request.header, request.blobs, timeout=request.timeout, what=request.what)
        except WorkerLost as exc:
            return exc

    def _merged(self, requests: list[Request]) -> list[Reply | BaseException] | None:
        """One exchange for all; None when it did not work out (then each goes alone)."""
        calls: list[dict[str, Any]] = []
        blobs: list[bytes] = []
        counts = []
        for request in requests:
            base = len(blobs)
            calls.extend(dict(call, blob_base=base) if base else call for call in request.header["calls"])
            blobs.extend(request.blobs)
            counts.append(len(request.header["calls"]))
        timeout = min(self.limits.call_timeout_s, sum(request.timeout for request in requests),
                      max(self.session.remaining(), 0.001))
        self.exchanges += 1
        try:
            reply, reply_blobs = self.session.calls({"op": "calls", "calls": calls}, blobs, timeout=timeout,
                                                    what=f"{len(calls)} calls of several checks")
        except WorkerLost:
            self.merge = False
            return None
        results = reply.get("results")
        if reply.get("op") != "results" or not isinstance(results, list) or len(results) != len(calls):
            self.merge = False
            return None  # too large together, or malformed: alone, each gets its own verdict
        replies: list[Reply | BaseException] = []
        start = 0
        for count in counts:
            replies.append(({"op": "results", "results": results[start : start + count]}, reply_blobs))
            start += count
        return replies


__all__ = ["CallSession", "Interleaver", "Request", "TaskSession"]
