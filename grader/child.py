"""A single-use child: the process a template forked for one submission, and the exchange of frames with it.

Each request is sent with its tensors in an arena (grader.protocol.Arena) and waited for under one deadline;
every way the child can fail (time, memory, crash, a forged or malformed frame, a reply over the size cap)
becomes a WorkerLost that names the limit and what was being asked. A call that ran out of time is asked,
before the child is killed, which line of the submission it was running (faulthandler, on SIGUSR1).
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from grader import protocol
from grader.calls import LimitKind, WorkerLost
from grader.cancel import CancelToken, GradingStopped
from grader.interleave import Answer
from grader.limits import Limits
from grader.messages import CallsRequest, LoadRequest, Tampered, TimedOut, reply_from_wire
from grader.placement import Slot
from grader.sandbox import Cgroup


class Forker(Protocol):
    """What a child needs of the template that forked it (grader.template.Template): the control socket on which
    the template says the child exited, and the reaping of the child's tree. A protocol, so that this module does
    not import the template's, which imports this one."""

    control: socket.socket | None

    def reap(self, child: Child) -> ExitInfo: ...


class _CallLimitExceeded(Exception):
    """The child said one call of a request did not return within the call limit (messages.TimedOut)."""


# A request of calls waits this long past its limit before the judge's clock ends it: the child's own clock
# (grader.sandboxed.learner_thread.LearnerThread) ends the call first, and its answer names the call and the line
# it was on.
CHILD_CLOCK_FIRST_S = 0.25


def wait_deadline(sent: float, timeout: float, budget: str | None) -> float:
    """When the judge stops waiting for a request sent at `sent`: its limit, plus a moment for the child's own
    clock to end the call first, unless what is left of a budget decides (no call of the child's then ends it)."""
    return sent + timeout + (CHILD_CLOCK_FIRST_S if budget is None else 0.0)


class _TorchChanged(Exception):
    """The child said the learner's code changed torch for the worker's own operations (messages.Tampered)."""


STACK_SAMPLE_S = 0.5  # how long a call that ran out of time gets to say which line it was on
SUBMISSION_FRAME = re.compile(r'File "submission\.py", line (\d+)')


@dataclass
class ExitInfo:
    exit_code: int | None
    cpu_s: float = 0.0
    max_rss_kb: int = 0
    memory_exceeded: bool = False
    pids_exhausted: bool = False


def explain_exit(info: ExitInfo, limits: Limits) -> tuple[str, LimitKind]:
    """(reason, what ended it) for a child that died on its own."""
    code = info.exit_code
    if info.memory_exceeded:
        return f"memory limit {limits.memory_mb} MiB exceeded", "memory"
    if code in (-signal.SIGXCPU, -signal.SIGKILL) and info.cpu_s >= limits.cpu_time_s - 1:
        return f"CPU time limit {limits.cpu_time_s} s exceeded", "time"
    if info.pids_exhausted and code is not None and code != 0:
        return f"the worker process died after reaching the limit of {limits.max_processes} processes", "processes"
    if code == -signal.SIGSEGV:
        return "the worker process crashed with a segmentation fault", "crash"
    if code is not None and code < 0:
        return f"the worker process was killed by {signal.Signals(-code).name}", "crash"
    if code is None:
        return "the worker process disappeared", "crash"
    return f"your code ended the worker process (exit status {code}; a submission must not call os._exit)", "crash"


def _braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


@dataclass(frozen=True)
class Outgoing:
    """A request ready to send (Child.prepare): its arena, which the judge keeps, and its frame's bytes."""

    arena: protocol.Arena
    parts: list[bytes]


@dataclass
class Child:
    """One single-use worker process holding one submission."""

    template: Forker
    sock: socket.socket
    host_pid: int
    cgroup: Cgroup | None
    limits: Limits
    exit_info: ExitInfo | None = None
    key: bytes = field(default_factory=lambda: os.urandom(32))  # signs every frame the child sends back
    slot: Slot | None = None  # the CPU it runs on (grader.placement), held until it ends
    stacks: int = -1  # read end of the pipe the child's faulthandler writes its stacks to
    source_lines: list[str] = field(default_factory=list)
    cancel: CancelToken | None = None  # the grading's Stop button: a wait for a reply ends when it is set
    # The request in flight (one at a time): when its wait may end at the latest, and how long the child's
    # threads had waited for a CPU when it was sent. A deadline is pushed back by the waiting since, up to there.
    _ceiling: float = 0.0
    _queued_at: float = 0.0
    _schedstats: list[int] | None = None  # descriptors of the child's threads' schedstat files (queued_s)

    def exchange(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
                 what: str | Callable[[], str], budget: str | None = None) -> Answer:
        """Send one request and wait for its reply; any way the child fails becomes WorkerLost naming why
        (`what` describes the request, built only for such a message). `budget`: the timeout is what was left of
        the budget so named (grader.session.Budget), and a time-out says so."""
        deadline = wait_deadline(time.monotonic(), timeout, budget)
        arena = self.send(request, blobs, deadline=deadline, timeout=timeout, what=what, budget=budget)
        return self.receive(arena, deadline=deadline, timeout=timeout, what=what, budget=budget)

    def send(self, request: CallsRequest, blobs: list[bytes], *, deadline: float, timeout: float,
             what: str | Callable[[], str], budget: str | None = None) -> protocol.Arena:
        """Send a request; its tensors go in an arena the judge keeps mapped (returned, for `receive`)."""
        return self.transmit(self.prepare(request, blobs), deadline=deadline, timeout=timeout, what=what,
                             budget=budget)

    @staticmethod
    def prepare(request: CallsRequest, blobs: list[bytes]) -> Outgoing:
        """A request made ready to send: its arena written and sealed, its frame encoded. Nothing reaches the
        child yet, so the judge can do this while the child answers the request before."""
        arena = protocol.Arena.create(blobs)
        try:
            return Outgoing(arena, protocol.frame_parts(request.to_wire(arena)))
        except BaseException:
            arena.close()
            raise

    def transmit(self, outgoing: Outgoing, *, deadline: float, timeout: float, what: str | Callable[[], str],
                 budget: str | None = None) -> protocol.Arena:
        """Send a prepared request, its clock starting now; returns its arena (for `receive`)."""
        arena = outgoing.arena
        self._start_clock(deadline)
        try:
            with self._failures(timeout, what, budget):
                self.sock.settimeout(max(0.001, deadline - time.monotonic()))
                protocol.send_parts(self.sock, outgoing.parts, fds=(arena.fd,) if arena.fd >= 0 else ())
        except BaseException:
            arena.close()
            raise
        arena.release_fd()
        return arena

    def send_load(self, request: LoadRequest, *, timeout: float, what: str, budget: str | None = None) -> Answer:
        """The submission, with the key the child signs its replies with (`request.key` is this child's) and the
        pipe it dumps its stacks to."""
        self.source_lines = request.code.splitlines()
        stacks, theirs = os.pipe()
        os.set_blocking(stacks, False)
        self.stacks = stacks
        deadline = time.monotonic() + timeout
        self._start_clock(deadline)
        try:
            with self._failures(timeout, what, budget):
                self.sock.settimeout(timeout)
                protocol.send_frame(self.sock, request.to_wire(), fds=(theirs,))
        finally:
            os.close(theirs)
        return self.receive(None, deadline=deadline, timeout=timeout, what=what, budget=budget)

    def running_line(self) -> str:
        """Ask the child which line of the submission it is running (its stacks, dumped by faulthandler on
        SIGUSR1), as ' (it was running line N of your code: `...`)', or '' when it does not say in time."""
        if self.stacks < 0:
            return ""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.host_pid, signal.SIGUSR1)
        dump, end = b"", time.monotonic() + STACK_SAMPLE_S
        while time.monotonic() < end and len(dump) < 65536:
            # The dump comes in a few writes; once some of it is in, a short quiet spell means it is complete.
            wait = max(0.0, end - time.monotonic()) if not dump else min(0.05, max(0.0, end - time.monotonic()))
            readable, _, _ = select.select([self.stacks], [], [], wait)
            if not readable:
                break
            try:
                chunk = os.read(self.stacks, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                break
            dump += chunk
        match = SUBMISSION_FRAME.search(dump.decode(errors="replace"))
        if match is None:
            return ""
        number = int(match.group(1))
        text = self.source_lines[number - 1].strip()[:120] if 0 < number <= len(self.source_lines) else ""
        return f" (it was running line {number} of your code" + (f": `{text}`)" if text else ")")

    def receive(self, arena: protocol.Arena | None, *, deadline: float, timeout: float,
                what: str | Callable[[], str], budget: str | None = None,
                then: Callable[[], object] | None = None) -> Answer:
        """The reply to the request whose arena this is, read whole before `deadline`; then the arena is
        compared with what the judge wrote into it and unmapped.

        `then`: run once the reply is read and the arena compared, before the reply is verified and parsed (the
        next request goes out there, so the child does not wait while the judge checks this reply). If it
        raises, this reply's own failure is raised instead when it has one, else what `then` raised."""
        try:
            with self._failures(timeout, what, budget):
                deadline = self._wait_for_reply(deadline)
                frame = protocol.read_frame(self.sock, max_blob_bytes=self.limits.message_mb * 1024 * 1024,
                                            signed=True, deadline=deadline, with_fds=False)
            written = arena.written() if arena is not None else ()
        finally:
            if arena is not None:
                arena.close()
        deferred: BaseException | None = None
        if then is not None:
            try:
                then()
            except BaseException as exc:  # noqa: B902 - this reply's own failure, if any, comes first
                deferred = exc
        with self._failures(timeout, what, budget):
            header, blobs = protocol.open_frame(frame, key=self.key)
            message = reply_from_wire(header)  # a malformed reply is the learner's interference
            if isinstance(message, TimedOut):
                raise _CallLimitExceeded
            if isinstance(message, Tampered):
                raise _TorchChanged(message.what)
        if deferred is not None:
            raise deferred
        return Answer(message, blobs, written)

    @contextlib.contextmanager
    def _failures(self, timeout: float, what: str | Callable[[], str], budget: str | None) -> Iterator[None]:
        """Any way the child fails, as a WorkerLost that names the limit or the cause and `what` was asked."""
        try:
            yield
        except GradingStopped:  # the learner stopped the grading: say where the call was, then kill it
            extra = self.running_line()
            self.end()
            description = what() if callable(what) else what
            raise GradingStopped(description, where=extra) from None
        except _CallLimitExceeded:  # the child's own clock: one call of the request broke the call limit
            extra = self._pids_note() + self.running_line()
            self.end()
            raise self._lost(f"time limit {self.limits.call_timeout_s:g} s exceeded in {{what}}{extra}", "time",
                             what) from None
        except _TorchChanged as exc:
            self.end()
            raise self._lost(f"your code changed torch for the grader too ({_braces(str(exc))}) during {{what}}; "
                             "submissions may not register kernels or leave modes or hooks on the grader's tensors",
                             "tampering", what) from None
        except TimeoutError:
            extra = self._pids_note() + (self.running_line() if budget is None else "")
            self.end()
            which = f"time limit {timeout:g} s exceeded" if budget is None else f"{_braces(budget)} used up"
            raise self._lost(f"{which} in {{what}}{extra}", "time" if budget is None else "total_time", what) from None
        except protocol.Unsigned:
            self.end()
            raise self._lost("your code wrote on the grader's channel: a malformed message the worker did not "
                             "sign arrived during {what}", "tampering", what) from None
        except protocol.MessageTooLarge as exc:
            self.end()
            raise self._lost(f"{{what}} sent back {exc.size / 2**20:.1f} MiB; the limit is "
                             f"{exc.cap / 2**20:g} MiB", "message_size", what) from None
        except (EOFError, ConnectionError, BrokenPipeError, protocol.ProtocolError, OSError) as exc:
            info = self.end()
            if isinstance(exc, protocol.ProtocolError):
                raise self._lost("the worker sent a malformed message during {what}", "tampering", what) from None
            reason, limit = explain_exit(info, self.limits)
            raise self._lost(f"{_braces(reason)} during {{what}}{self._pids_note(info)}", limit, what) from None

    @staticmethod
    def _lost(reason: str, limit: LimitKind | None, what: str | Callable[[], str]) -> WorkerLost:
        description = what() if callable(what) else what
        return WorkerLost(reason.format(what=description), limit=limit)

    def settle_deadline(self, sent: float, deadline: float) -> None:
        """The request in flight, sent at `sent`, is waited for until `deadline`; its wall-clock ceiling follows."""
        self._ceiling = sent + (deadline - sent) * self.limits.wall_ceiling_factor

    def _start_clock(self, deadline: float) -> None:
        now = time.monotonic()
        self._ceiling = now + (deadline - now) * self.limits.wall_ceiling_factor
        self._queued_at = self.queued_s()

    def queued_s(self) -> float:
        """Seconds the child's threads have spent runnable but waiting for a CPU that other processes held (the
        kernel's schedstat, read from outside the sandbox; 0 where it cannot be read). The threads' files stay open
        while their number does not change, so a read costs a few microseconds, not the 170 us of listing and
        opening them for every request."""
        try:  # a directory's link count is 2 plus its subdirectories: a thread started or ended, open them anew
            threads = os.stat(f"/proc/{self.host_pid}/task").st_nlink - 2
        except OSError:
            threads = 0
        if self._schedstats is None or threads != len(self._schedstats):
            for fd in self._schedstats or ():
                os.close(fd)
            self._schedstats = self._open_schedstats()
        total = 0.0
        for fd in self._schedstats:
            try:
                total += int(os.pread(fd, 128, 0).split()[1]) / 1e9
            except (OSError, IndexError, ValueError):
                continue  # the thread ended meanwhile
        return total

    def _open_schedstats(self) -> list[int]:
        opened: list[int] = []
        try:
            tasks = os.listdir(f"/proc/{self.host_pid}/task")
        except OSError:
            return opened
        for task in tasks:
            with contextlib.suppress(OSError):
                opened.append(os.open(f"/proc/{self.host_pid}/task/{task}/schedstat", os.O_RDONLY | os.O_CLOEXEC))
        return opened

    def _wait_for_reply(self, deadline: float) -> float:
        """Until the reply starts to arrive; returns the deadline for the rest of the frame. Completion is decided
        by watching the child, not only the socket: a helper process of the learner's may hold the socket open
        after the child itself has died, and the template reports the child's exit on its control socket the
        moment it happens. A busy machine pushes the deadline back by the time the child waited for a CPU, up
        to the wall-clock ceiling (Limits.wall_ceiling_factor), so a call's time counts as the child counts it."""
        base = deadline
        control = self.template.control
        watched: list[socket.socket | int] = [self.sock] if control is None else [self.sock, control]
        cancel = self.cancel
        if cancel is not None and cancel.fileno() >= 0:
            watched.append(cancel.fileno())
        while True:
            if cancel is not None and cancel.cancelled:
                raise GradingStopped
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                deadline = min(self._ceiling, base + self.queued_s() - self._queued_at)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
            readable, _, _ = select.select(watched, [], [], remaining)
            if self.sock in readable:
                return deadline
            if cancel is not None and cancel.fileno() in readable:
                raise GradingStopped
            if readable:
                raise EOFError("the child exited")

    def _pids_note(self, info: ExitInfo | None = None) -> str:
        exhausted = info.pids_exhausted if info else (self.cgroup.pids_exhausted() if self.cgroup else False)
        return f" (your code also hit the limit of {self.limits.max_processes} processes/threads)" if exhausted else ""

    def end(self) -> ExitInfo:
        if self.stacks >= 0:
            os.close(self.stacks)
            self.stacks = -1
        for fd in self._schedstats or ():
            os.close(fd)
        self._schedstats = None
        if self.exit_info is None:
            with contextlib.suppress(OSError):
                self.sock.close()
            self.exit_info = self.template.reap(self)
        if self.slot is not None:
            self.slot.release()
            self.slot = None
        return self.exit_info
