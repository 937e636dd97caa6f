"""A submission's session: its conversation with one warm template's children, from load to the last call.

It holds the submission's time budgets over every request (the total time limit while required checks run,
then the advisory budget), pipelines grouped requests to one child (grader.interleave), and starts over on a
fresh child of the same template (or of a replacement, when the template died) when a call killed the current one.

A budget is spent by the learner's calls as the child measures them (`CallOutcome.duration_ms`: the calls' time
less the time the learner's thread waited for a CPU another process held), so a busy machine spends no more of
it than a quiet one. A submission could only lie to spend less, which buys it no more than the wall-clock
ceiling (`Limits.wall_ceiling_factor` times the budget) that bounds every wait for it anyway.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from grader import protocol
from grader.calls import ExceptionInfo, WorkerLost
from grader.cancel import CallStarted, CancelToken, GradingStopped, OnCall
from grader.child import Child, Outgoing, wait_deadline
from grader.interleave import Answer, Request
from grader.limits import Limits
from grader.messages import CallsReply, CallsRequest, Loaded, LoadRequest
from grader.template import Template


class TemplateSource(Protocol):
    """Where a session gets a new template when its own died (grader.pool.WorkerPool)."""

    def replace(self, dead: Template) -> Template: ...


TOTAL_BUDGET = "total time limit {seconds:g} s for the whole submission"
ADVISORY_BUDGET = "advisory budget of {seconds:g} s"
# How long a child lost while loading waits to learn whether its template died with it (bubblewrap's exit follows
# the template's within milliseconds on a quiet machine; only a crash while loading pays this, at most once).
TEMPLATE_EXIT_WAIT_S = 1.0


@dataclass(frozen=True)
class Budget:
    """Seconds the learner's calls may spend, and how a message names them (`{seconds}` filled in)."""

    seconds: float
    wording: str

    def describe(self) -> str:
        return self.wording.format(seconds=self.seconds)


@dataclass
class LoadResult:
    ok: bool
    functions: tuple[str, ...] = ()
    raised: ExceptionInfo | None = None
    output: str = ""


@dataclass
class WorkerSession:
    """A submission's conversation with the sandbox: load it, make calls, and start over on a fresh child
    (from the same warm template) when a call killed the current one."""

    pool: TemplateSource
    template: Template
    code: str
    limits: Limits
    seed: int = 0
    modules: dict[str, str] = field(default_factory=dict)
    banned_calls: tuple[str, ...] = ()
    cancel: CancelToken | None = None  # the Stop button: every wait for the worker ends when it is set
    on_call: OnCall | None = None  # told each time a request is sent (CallStarted) and when none is waiting
    child: Child | None = None
    restarts: int = 0
    _started: float = field(default_factory=time.monotonic)
    _budget: Budget | None = None
    _spent: float = 0.0  # seconds of the learner's calls charged to the budget, as the child measured them

    @property
    def budget(self) -> Budget:
        if self._budget is None:
            self._budget = Budget(self.limits.total_timeout_s, TOTAL_BUDGET)
        return self._budget

    def start_advisory_budget(self) -> None:
        """From now on requests spend the advisory budget, afresh: the total time limit is the required checks'."""
        self._budget = Budget(self.limits.advisory_budget_s, ADVISORY_BUDGET)
        self._spent, self._started = 0.0, time.monotonic()

    def remaining(self) -> float:
        """Seconds of the budget left: of the calls' measured time, or of its wall-clock ceiling if that is less."""
        return min(self.budget.seconds - self._spent, self._wall_left() / self.limits.wall_ceiling_factor)

    def _wall_left(self) -> float:
        return self.budget.seconds * self.limits.wall_ceiling_factor - (time.monotonic() - self._started)

    def _charge(self, answer: Answer) -> Answer:
        if isinstance(answer.message, CallsReply):
            self._spent += sum(result.duration_ms for result in answer.message.results) / 1000
        return answer

    def _charge_lost(self, lost: WorkerLost, sent: float) -> None:
        """A request that ended the child has no durations: a call cut at its limit spent the limit (the child's
        clock measured that much), any other end the wall time it took (a crash, a memory limit: short)."""
        self._spent += self.limits.call_timeout_s if lost.limit == "time" else time.monotonic() - sent

    def load(self) -> LoadResult:
        if self.cancel is not None:
            self.cancel.raise_if_cancelled()
        try:
            return self._load_once()
        except WorkerLost as lost:
            # A template that dies (killed from outside, or by an earlier submission's child) takes the child it
            # forked ahead with it, and bubblewrap, which `alive()` watches, exits a moment later. A child lost that
            # way was not lost to this submission: it loads once more, on a replacement. A submission that kills
            # its own template while loading is lost again there, and that is what it is told.
            if lost.limit != "crash" or not self.template.exits_within(TEMPLATE_EXIT_WAIT_S):
                raise
            self.close()
            return self._load_once()

    def _load_once(self) -> LoadResult:
        if not self.template.alive():
            self.template = self.pool.replace(self.template)
        try:
            self.child = self.template.take_child(self.limits)
        except WorkerLost:  # the template died under us (a previous child may have killed it): one fresh try
            self.template = self.pool.replace(self.template)
            self.child = self.template.take_child(self.limits)
        self.child.cancel = self.cancel
        request = LoadRequest(code=self.code, seed=self.seed, limits=self.limits.model_dump(), modules=self.modules,
                              banned_calls=self.banned_calls, key=self.child.key.hex(),
                              processes_capped=self.child.cgroup is not None)
        # A restart late in the submission gets what is left of its total time, and a time-out then says so.
        timeout, budget = self._within_total(self.limits.load_timeout_s)
        self._started_call("")
        sent = time.monotonic()
        try:
            reply = self.child.send_load(request, timeout=timeout, what="loading your code", budget=budget).message
        finally:
            self._spent += time.monotonic() - sent  # a load reports no duration of its own: its wall time
            self._started_call(None)
        if not isinstance(reply, Loaded):
            self.child.end()
            raise WorkerLost("the worker answered loading your code with a malformed reply", limit="tampering")
        return LoadResult(ok=reply.ok, functions=reply.functions, raised=reply.raised, output=reply.output)

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str = "") -> Answer:
        """One request, under `timeout` and what is left of the submission's total time."""
        timeout, budget = self._within_total(timeout)
        child = self._live_child()
        self._started_call(function)
        sent = time.monotonic()
        try:
            return self._charge(child.exchange(request, blobs, timeout=timeout, what=what, budget=budget))
        except WorkerLost as lost:
            self._charge_lost(lost, sent)
            raise
        finally:
            self._started_call(None)

    def grouped_calls(self, requests: list[Request]) -> Iterator[Answer]:
        """Several requests to the same child, pipelined. While the child answers one request, the judge makes
        the next ready (its arena, its frame); the moment the reply is read and its arena compared, the next goes
        out, and only then is the reply verified, parsed and handed to the caller. Each keeps its own time limit,
        counted from when it is sent, within what is left of the submission's total time once the reply before
        it is charged. Requests the caller appends to `requests` while it handles a reply are sent too (a check
        that asked for more calls joins the exchange). A failure raises WorkerLost for the request it happened
        in (the child is gone then; the caller re-sends the rest)."""
        child = self._live_child()
        pending: tuple[Request, protocol.Arena, float, float, str | None] | None = None
        ready: tuple[Request, Outgoing] | None = None
        sent: tuple[Request, protocol.Arena, float] | None = None  # out, its deadline not settled yet
        failed_next: BaseException | None = None  # sending the next request failed: not this request's time

        def send_next() -> None:
            nonlocal ready, sent, failed_next
            if ready is None:
                self._started_call(None)
                return
            (request, outgoing), ready = ready, None
            at = time.monotonic()
            self._started_call(request.function)
            try:
                arena = child.transmit(outgoing, deadline=wait_deadline(at, request.timeout, None),
                                       timeout=request.timeout, what=request.what)
            except BaseException as exc:
                failed_next = exc
                raise
            sent = (request, arena, at)

        def settle(request: Request, arena: protocol.Arena, at: float,
                   ) -> tuple[Request, protocol.Arena, float, float, str | None]:
            """The wait for a request already sent, from what is left of the total time now that the reply
            before it is charged (what sending it did before the two overlapped; a budget used up ends the child
            and this request with it, unanswered, as not sending it did)."""
            try:
                timeout, budget = self._within_total(request.timeout)
            except BaseException:
                arena.close()
                raise
            deadline = wait_deadline(at, timeout, budget)
            child.settle_deadline(at, deadline)
            return request, arena, deadline, timeout, budget

        position = 0  # the next of `requests` to send: the caller may append to it while we yield
        try:
            while True:
                if pending is None:  # nothing in flight: the first request, or one appended while we yielded
                    if position == len(requests):
                        break
                    first, position = requests[position], position + 1
                    timeout, budget = self._within_total(first.timeout)
                    deadline = wait_deadline(time.monotonic(), timeout, budget)
                    self._started_call(first.function)
                    arena = child.send(first.message, first.blobs, deadline=deadline, timeout=timeout,
                                       what=first.what, budget=budget)
                    pending = (first, arena, deadline, timeout, budget)
                request, arena, deadline, timeout, budget = pending
                pending = None
                if position < len(requests):  # made ready while the child works on `request`
                    upcoming, position = requests[position], position + 1
                    ready = (upcoming, child.prepare(upcoming.message, upcoming.blobs))
                try:
                    answer = self._charge(child.receive(arena, deadline=deadline, timeout=timeout,
                                                        what=request.what, budget=budget, then=send_next))
                except WorkerLost as lost:
                    if lost is not failed_next:
                        self._charge_lost(lost, deadline - timeout)
                    raise
                if sent is not None:
                    (request, arena, at), sent = sent, None
                    pending = settle(request, arena, at)
                yield answer
        finally:
            for arena in ([pending[1]] if pending else []) + ([sent[1]] if sent else []):
                arena.close()
            if ready is not None:
                ready[1].arena.close()
            self._started_call(None)  # a failure or an early close: nothing is waiting (repeats are harmless)

    def _started_call(self, function: str | None) -> None:
        if self.on_call is not None:
            self.on_call(None if function is None else CallStarted(function))

    def _within_total(self, timeout: float) -> tuple[float, str | None]:
        """(the timeout to wait, the budget's name when it is what is left of it that decides)."""
        if self.cancel is not None and self.cancel.cancelled:
            self.close()  # the child may be in the middle of a request nobody waits for any more
            raise GradingStopped
        budget = self.budget
        if self.remaining() <= 0:
            if self.child is not None:
                self.child.end()  # it may be in the middle of a request we no longer wait for
            raise WorkerLost(f"{budget.describe()} used up", limit="total_time")
        # The child (grader.child.Child) pushes a wait back by the time it spent waiting for a CPU, so the budget
        # left is the wait; the budget's own wall-clock ceiling still bounds it.
        left = min(budget.seconds - self._spent, self._wall_left())
        return (timeout, None) if timeout <= left else (left, budget.describe())

    def _live_child(self) -> Child:
        if self.child is None or self.child.exit_info is not None:
            self.restart()
        assert self.child is not None
        return self.child

    def limit_notes(self) -> str:
        """Limits the current child has run into (for a call that raised, e.g. "can't start new thread")."""
        child = self.child
        if child is None or child.cgroup is None:
            return ""
        notes = []
        if child.cgroup.pids_exhausted():
            notes.append(f"limit of {self.limits.max_processes} processes/threads reached")
        if child.cgroup.memory_exceeded():
            notes.append(f"memory limit {self.limits.memory_mb} MiB reached")
        return f" [{'; '.join(notes)}]" if notes else ""

    def restart(self) -> None:
        self.close()
        self.restarts += 1
        result = self.load()
        if not result.ok:
            raise WorkerLost("your code failed to load again on a fresh worker")

    def close(self) -> None:
        if self.child is not None:
            self.child.end()
            self.child = None
