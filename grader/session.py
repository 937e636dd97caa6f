"""A submission's session: its conversation with one warm template's children, from load to the last call.

It holds the submission's total time limit over every request, pipelines grouped requests to one child
(grader.interleave), and starts over on a fresh child of the same template (or of a replacement, when the
template died) when a call killed the current one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from grader import protocol
from grader.calls import ExceptionInfo, WorkerLost
from grader.cancel import CallStarted, CancelToken, GradingStopped, OnCall
from grader.child import Child
from grader.interleave import Answer, Request
from grader.limits import Limits
from grader.messages import CallsRequest, Loaded, LoadRequest
from grader.template import Template


class TemplateSource(Protocol):
    """Where a session gets a new template when its own died (grader.pool.WorkerPool)."""

    def replace(self, dead: Template) -> Template: ...


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

    def remaining(self) -> float:
        return self.limits.total_timeout_s - (time.monotonic() - self._started)

    def load(self) -> LoadResult:
        if self.cancel is not None:
            self.cancel.raise_if_cancelled()
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
        timeout, total_s = self._within_total(self.limits.load_timeout_s)
        self._started_call("")
        try:
            reply = self.child.send_load(request, timeout=timeout, what="loading your code", total_s=total_s).message
        finally:
            self._started_call(None)
        if not isinstance(reply, Loaded):
            self.child.end()
            raise WorkerLost("the worker answered loading your code with a malformed reply", limit="tampering")
        return LoadResult(ok=reply.ok, functions=reply.functions, raised=reply.raised, output=reply.output)

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str = "") -> Answer:
        """One request, under `timeout` and what is left of the submission's total time."""
        timeout, total_s = self._within_total(timeout)
        child = self._live_child()
        self._started_call(function)
        try:
            return child.exchange(request, blobs, timeout=timeout, what=what, total_s=total_s)
        finally:
            self._started_call(None)

    def grouped_calls(self, requests: Sequence[Request]) -> Iterator[Answer]:
        """Several requests to the same child, pipelined: the next one is sent the moment a reply is in (and its
        arena compared), before the caller handles the reply. Each keeps its own time limit, counted from when
        it is sent, within what is left of the submission's total time. A failure raises WorkerLost for the
        request it happened in (the child is gone then; the caller re-sends the rest)."""
        child = self._live_child()
        pending: tuple[Request, protocol.Arena, float, float, float | None] | None = None

        def send(request: Request) -> tuple[Request, protocol.Arena, float, float, float | None]:
            timeout, total_s = self._within_total(request.timeout)
            deadline = time.monotonic() + timeout
            self._started_call(request.function)  # the worker takes it the moment the reply before it is out
            arena = child.send(request.message, request.blobs, deadline=deadline, timeout=timeout,
                               what=request.what, total_s=total_s)
            return request, arena, deadline, timeout, total_s

        queue = list(requests)
        try:
            pending = send(queue.pop(0))
            while pending is not None:
                request, arena, deadline, timeout, total_s = pending
                pending = None
                answer = child.receive(arena, deadline=deadline, timeout=timeout, what=request.what, total_s=total_s)
                if queue:
                    pending = send(queue.pop(0))
                else:
                    self._started_call(None)
                yield answer
        finally:
            if pending is not None:
                pending[1].close()
            self._started_call(None)  # a failure or an early close: nothing is waiting (repeats are harmless)

    def _started_call(self, function: str | None) -> None:
        if self.on_call is not None:
            self.on_call(None if function is None else CallStarted(function))

    def _within_total(self, timeout: float) -> tuple[float, float | None]:
        """(the timeout to wait, the total limit when it is what is left of it that decides)."""
        if self.cancel is not None and self.cancel.cancelled:
            self.close()  # the child may be in the middle of a request nobody waits for any more
            raise GradingStopped
        remaining = self.remaining()
        total = self.limits.total_timeout_s
        if remaining <= 0:
            if self.child is not None:
                self.child.end()  # it may be in the middle of a request we no longer wait for
            raise WorkerLost(f"total time limit {total:g} s for the whole submission used up", limit="total_time")
        return (timeout, None) if timeout <= remaining else (remaining, total)

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
