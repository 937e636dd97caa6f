"""Preparing a grading host: the work of a problem's first grading in a process that needs no submission, done
ahead on a thread of its own while nothing is being graded.

A problem's first grading in a fresh process draws its property search's examples (Hypothesis, imported then
too): about half a second of a MoCo or an attention grading, nearly two for BPE's, paid by whichever learner
presses Run first after a start. The preparer does that work for every problem after the host starts, one step
at a time, each step only once `idle()` says no submission is waiting or being graded, on a thread at the lowest
CPU priority. A step is a check's `preparations` entry (grader.checks.Check): idempotent, and deterministic
(the examples are drawn from a fixed seed, whichever thread draws them), so a grading that runs before or beside
it gets the verdict it would have got anyway, and only pays for the part not yet done.

Where the host can grade (`grade_reference`), the last step of each problem grades its reference solution through
the host's own pool: the judge then holds the reference's answers to the battery's seeded inputs
(grader.refcache), which a first grading would otherwise compute (about 120 ms of MoCo's). A reference that fails
its own checks is logged: the problem's folder or the engine has changed under it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from functools import partial

from grader.cancel import CancelToken
from grader.heap import settle
from grader.problems import Problem
from grader.report import Report

logger = logging.getLogger(__name__)

IDLE_POLL_S = 0.05  # how often a paused preparer asks again whether the host is idle
LOWEST_PRIORITY = 19  # the thread's nice value: the sandboxed children and the other threads come first


def preparation_steps(problem: Problem) -> list[Callable[[], object]]:
    """Every step of `problem`'s preparation, in the order of its checks."""
    return [step for check in problem.checks for step in check.preparations]


class Activity:
    """How many gradings (or scripts) this process is running: each holds `running()` while it does."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        with self._lock:
            self._count += 1
        try:
            yield
        finally:
            with self._lock:
                self._count -= 1

    def idle(self) -> bool:
        with self._lock:
            return self._count == 0


class Preparer:
    """Runs every problem's preparation steps on a daemon thread, pausing before each step until `idle()`.

    `problems`: read when the thread starts (a catalogue reloaded later is prepared by its first gradings).
    `prepared`: how many problems are done, for health reports and the benchmark.
    `grade_reference`: grades a problem's reference solution on the host's pool, stopping when the token is
    cancelled (None: the host does not grade, or grades with a stand-in).
    `after_each`: run once a problem is prepared, when the host is idle again. By default the heap is settled
    (grader.heap): what a problem's preparation made lives as long as the process, and left to the collector the
    whole catalogue's (65,000 objects) made each full collection 21 ms longer, in every grading after (MoCo's warm
    median through the HTTP API, paired: 592 ms unprepared, 649 prepared without settling)."""

    def __init__(self, problems: Callable[[], Iterable[Problem]], idle: Callable[[], bool], *,
                 grade_reference: Callable[[Problem, CancelToken], Report] | None = None,
                 poll_s: float = IDLE_POLL_S, after_each: Callable[[], None] = settle) -> None:
        self._problems = problems
        self._idle = idle
        self._grade_reference = grade_reference
        self._poll_s = poll_s
        self._after_each = after_each
        self._stopping = threading.Event()
        self._cancel = CancelToken()  # stops a reference's grading under way
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._prepared = 0
        self._total: int | None = None

    @property
    def prepared(self) -> int:
        with self._lock:
            return self._prepared

    @property
    def done(self) -> bool:
        with self._lock:
            return self._total is not None and self._prepared >= self._total

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="paperlab-prepare", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Ask the thread to stop after its current step (a step is short: one battery's examples)."""
        self._stopping.set()
        self._cancel.cancel()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def _run(self) -> None:
        try:
            self._prepare_all()
        finally:
            self._cancel.close()

    def _prepare_all(self) -> None:
        _lower_priority()
        problems = list(self._problems())
        with self._lock:
            self._total = len(problems)
        for problem in problems:
            steps = preparation_steps(problem)
            if self._grade_reference is not None:
                steps.append(partial(self._check_reference, self._grade_reference, problem))
            for step in steps:
                if not self._wait_until_idle():
                    return
                try:
                    step()
                except Exception:  # noqa: BLE001 - a grading does this work itself and reports what fails in it
                    logger.exception("preparing %s failed; its first grading will do the work", problem.slug)
            if not self._wait_until_idle():  # idle again: nothing of a grading's is frozen with what was made
                return
            self._after_each()
            with self._lock:
                self._prepared += 1
        logger.info("prepared %d problem(s)", len(problems))

    def _check_reference(self, grade_reference: Callable[[Problem, CancelToken], Report], problem: Problem) -> None:
        report = grade_reference(problem, self._cancel)
        if not report.solved and not report.stopped:
            failed = [check.id for check in report.checks if check.required and check.status != "passed"]
            why = report.error.message if report.error is not None else ", ".join(failed[:5])
            logger.warning("the reference solution of %s does not pass its own checks: %s", problem.slug, why)

    def _wait_until_idle(self) -> bool:
        """False once stopping."""
        while not self._stopping.is_set():
            if self._idle():
                return True
            self._stopping.wait(self._poll_s)
        return False


def _lower_priority() -> None:
    try:  # Linux sets a thread's own priority by its id; elsewhere this would lower the whole process: skipped
        if hasattr(os, "setpriority") and os.uname().sysname == "Linux":
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOWEST_PRIORITY)
    except OSError:
        pass  # not permitted here: the idle pauses still keep it out of the gradings' way
