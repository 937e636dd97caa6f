"""Stopping a grading from outside it (the learner's Stop button), and what the judge says about the calls it
makes while it runs.

A `CancelToken` is set from any thread; the judge's waits for the worker watch its file descriptor, so a call
that loops is interrupted at once rather than at its time limit. The child running the call is killed (its whole
cgroup) and the grading ends with `Report.stopped`; the template it came from forks a fresh child for the next
submission, exactly as after a call that hit a limit.

`CallStarted` is the fact the judge publishes each time it hands the worker a request: which learner function it
now waits on, since when. It comes from the trusted side (the moment the request was sent), never from the
worker, so a submission cannot make the page say anything about its own calls."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from grader.errors import GradingError


class GradingStopped(GradingError):
    """The grading's CancelToken was set: the judge stops waiting, kills the child and reports what it has.
    `what`: the request that was running when it stopped (e.g. "momentum_update(...)"), when one was; `where`:
    the line of the learner's code it was on, as grader.child.Child.running_line words it."""

    def __init__(self, what: str = "", *, where: str = "") -> None:
        self.what = what
        self.where = where
        super().__init__(f"stopped during {what}{where}" if what else "stopped")


class CancelToken:
    """Set once, from any thread (`cancel`); read by the grading thread (`cancelled`, `fileno` for select)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            if self._write >= 0:
                with contextlib.suppress(BlockingIOError):
                    os.write(self._write, b"x")  # wakes every select() watching fileno()

    def fileno(self) -> int:
        """Readable once cancelled (for select); -1 after close."""
        return self._read

    def raise_if_cancelled(self, what: str = "") -> None:
        if self._event.is_set():
            raise GradingStopped(what)

    def close(self) -> None:
        with self._lock:
            for fd in (self._read, self._write):
                if fd >= 0:
                    os.close(fd)
            self._read = self._write = -1

    def __enter__(self) -> CancelToken:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a token nobody closed must not leak two descriptors per grading
        with contextlib.suppress(Exception):
            self.close()


@dataclass(frozen=True)
class CallStarted:
    """The judge just sent the worker a request and now waits on it. `function`: the learner's function called,
    or "" while the worker loads the submission's module. `started_at`: wall-clock time (time.time()) it was
    sent, so another process (a web server streaming it) can say how long it has been running."""

    function: str
    started_at: float = field(default_factory=time.time)


# What the judge calls with each CallStarted, and with None once no request is waiting any more.
OnCall = Callable[[CallStarted | None], None]

__all__ = ["CallStarted", "CancelToken", "GradingStopped", "OnCall"]
