"""The thread the learner's code runs on: one call at a time, on a stack that holds nothing of the worker's, timed
by a clock that leaves out waiting for a CPU; and what the learner's code prints."""

from __future__ import annotations

import _thread
import builtins as _real_builtins
import functools
import os
import posix
import time
from typing import Any

_allocate_lock = _thread.allocate_lock
_start_thread = _thread.start_new_thread
_get_native_id = _thread.get_native_id
_monotonic = time.monotonic
_pread = posix.pread
_write = posix.write
HERE = os.path.dirname(os.path.abspath(__file__))


def _read_here(name: str) -> str:
    with open(os.path.join(HERE, name), encoding="utf-8") as source:
        return source.read()


# What the learner's thread runs and may reach (learner_side.py), compiled once in the template, before any
# submission exists, and run in a namespace of its own in each child: from its frames and globals the learner's
# code reaches nothing of the worker's.
_LEARNER_SIDE = compile(_read_here("learner_side.py"), "<paperlab learner thread>", "exec", dont_inherit=True)


def learner_namespace() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__builtins__": _real_builtins, "__name__": "paperlab_learner"}
    exec(_LEARNER_SIDE, namespace)
    return namespace


class Interfered(Exception):
    """The learner's code tampered with the thread that runs it (released it early, emptied its results)."""


class CallOverran(Exception):
    """A call of the learner's code did not return within the call limit; its thread is still running it."""


class LearnerThread:
    """Runs the learner's code, one call at a time, on a thread whose stack holds nothing of the worker's.

    `call_timeout_s`: how long `run` lets one call take (-1: for ever, while the submission loads, where the
    judge's deadline decides), counted as the call's wall time less the time the learner's thread waited for a
    CPU that other processes held (the kernel's schedstat), so a busy machine changes no verdict; a call whose
    wall time reaches `wall_ceiling_factor` times the limit ends anyway. A request of several calls then ends at
    the first call that breaks the limit, not when the judge's deadline for all of them runs out."""

    STACK_BYTES = 64 * 1024 * 1024  # recursion to MAX_RECURSION_LIMIT, through C calls too, ends in RecursionError

    def __init__(self, namespace: dict[str, Any]) -> None:
        self._jobs: list[Any] = []
        self._results: list[Any] = []
        self.graveyard: list[Any] = []
        # The learner's thread waits for a byte on a pipe, not on a lock: this thread lets go of the interpreter
        # lock while it writes, before the learner's thread wakes, so that thread rarely finds the lock still held
        # when it starts. Woken through a lock, it found it held nearly every call: a MoCo grading (526 calls)
        # took 3,790 futex calls and 3,360 context switches, now 1,275 and 1,975.
        self._wake_read, self._wake_write = os.pipe()
        self._done = _allocate_lock()
        self._done.acquire()
        self.call_timeout_s = -1.0
        self.wall_ceiling_factor = 1.0
        previous = _thread.stack_size(self.STACK_BYTES)
        try:
            _start_thread(namespace["serve"], (self._jobs, self._results, self.graveyard,
                                               functools.partial(posix.read, self._wake_read, 1), self._done))
        finally:
            _thread.stack_size(previous)
        self._schedstat = -1
        self._started = (0.0, 0.0)  # the clocks `run` read before its last call: last_call_s reads them
        ok, tid = self.run(_get_native_id, (), {})
        if ok:
            try:  # opened now, before the submission loads: the guard would refuse nothing here, but no path lookup
                self._schedstat = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)
            except OSError:
                pass  # no schedstat in this kernel: calls are timed by the wall clock alone

    def queued_s(self) -> float:
        """Seconds the learner's thread has spent runnable but waiting for a CPU (0 where the kernel does not
        say). A submission that forges it (its own file on this descriptor) still meets the wall-clock ceiling."""
        if self._schedstat < 0:
            return 0.0
        try:
            fields = _pread(self._schedstat, 128, 0).split()
            return int(fields[1]) / 1e9 if len(fields) >= 2 else 0.0
        except (OSError, ValueError):
            return 0.0

    def last_call_s(self) -> float:
        """Seconds the last `run` took, less the time the learner's thread waited for a CPU: the duration the
        judge's budgets spend, the same on a busy machine. `run` read the clocks at its start, so this reads
        schedstat once more, not twice (two reads a call instead of three: 526 fewer system calls a MoCo grading)."""
        started, queued = self._started
        return max(0.0, _monotonic() - started - (self.queued_s() - queued))

    def _wake(self) -> None:
        try:
            _write(self._wake_write, b"w")
        except OSError:  # the learner's code closed or replaced the pipe's reading end
            raise Interfered("your code interfered with the thread that runs it") from None

    def run(self, function: Any, args: Any, kwargs: Any) -> tuple[bool, Any]:
        """(True, value) or (False, exception). Everything it returns stays referenced by the graveyard, so it
        is freed on the learner's thread, never on this one."""
        self._jobs.append((function, args, kwargs))
        limit = self.call_timeout_s
        # The clocks are read before the learner's thread is woken, and nothing after the write that wakes it
        # and before blocking here lets go of the interpreter lock: a read of schedstat there (a system call,
        # so the lock is released) handed the lock to the learner's thread mid-start and took it back at its
        # next torch operation, three more hand-overs a call, 45 ms of a MoCo grading's 526 calls.
        started, queued = self._started = _monotonic(), self.queued_s()
        if limit < 0:
            self._wake()
            self._done.acquire()
        else:
            ceiling = limit * self.wall_ceiling_factor
            self._wake()
            wait = min(limit, ceiling)
            while not self._done.acquire(True, max(0.001, wait)):
                elapsed = _monotonic() - started
                used = elapsed - (self.queued_s() - queued)
                if used >= limit or elapsed >= ceiling:
                    raise CallOverran
                wait = min(limit - used, ceiling - elapsed)
        results = self._results
        if type(results) is not list or len(results) != 1:
            raise Interfered("your code interfered with the thread that runs it")
        entry = results.pop()
        self.graveyard.append(entry)
        if type(entry) is not tuple or len(entry) != 2 or type(entry[0]) is not bool:
            raise Interfered("your code interfered with the thread that runs it")
        return entry

class Output:
    """What the learner's code printed: the writer (learner-side) appends to `parts`; this side reads."""

    def __init__(self, namespace: dict[str, Any], limit: int) -> None:
        self.limit = limit
        self.namespace = namespace
        self.parts: list[Any] = []
        self.dropped = [0]
        self.writer = namespace["BoundedWriter"](limit, self.parts, self.dropped)

    def take(self) -> str:
        pieces = [part for part in self.parts if type(part) is str]
        text = "".join(pieces)[: self.limit]
        dropped = self.dropped[0] if type(self.dropped[0]) is int else 0
        self.parts.clear()
        self.dropped[0] = 0
        if dropped:
            text += f"\n[... {dropped} more characters not shown: output limit {self.limit} characters]"
        return text

