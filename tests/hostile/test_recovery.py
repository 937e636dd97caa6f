"""The pool outlives its templates: a killed template is replaced, and a child that crashes, hangs or eats memory
does not take its template down."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem
from grader.report import Report
from tests.hostile.conftest import wait_until_all_idle
from tests.hostile.hostile_support import assert_unsolved_within, messages, submission

GradeCode = Callable[..., Report]


def wait_for_exit(pid: int, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/status") as status:
                if any(line.startswith("State:") and "Z" in line for line in status):
                    return
        except FileNotFoundError:
            return
        time.sleep(0.01)


def test_pool_recovers_after_its_template_is_killed(
    fresh_pool: Callable[[int], WorkerPool], template_pids: Callable[[WorkerPool], list[int]], adder: Problem,
    adder_correct: str, assert_clean: Callable[[WorkerPool], None],
) -> None:
    pool = fresh_pool(1)
    assert grade(adder, adder_correct, pool=pool).solved
    wait_until_all_idle(pool)  # the pool forks the next child in the background, in its template's cgroup at first
    (template,) = template_pids(pool)
    os.kill(template, signal.SIGKILL)
    wait_for_exit(template)
    report = grade(adder, adder_correct, pool=pool)
    assert report.solved, [(c.id, c.message) for c in report.checks]
    wait_until_all_idle(pool)
    (replacement,) = template_pids(pool)
    assert replacement != template
    assert grade(adder, adder_correct, pool=pool).solved
    wait_until_all_idle(pool)
    assert_clean(pool)


def continue_(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # gone already: the pool closed the dead template
        os.kill(pid, signal.SIGCONT)


def test_a_child_lost_with_its_dying_template_is_not_held_against_the_submission(
    fresh_pool: Callable[[int], WorkerPool], template_pids: Callable[[WorkerPool], list[int]], adder: Problem,
    adder_correct: str,
) -> None:
    """The template dies between two submissions and takes the child it forked ahead with it, while bubblewrap,
    the process the pool watches, has not exited yet (held stopped here; on a busy machine it is a moment). The
    next submission is handed that dead child: it must load again on a replacement, not fail as a crash."""
    pool = fresh_pool(1)
    assert grade(adder, adder_correct, pool=pool).solved
    wait_until_all_idle(pool)
    (template,) = pool._all  # noqa: SLF001 - the template's own handles: its bubblewrap and its forked-ahead child
    assert template.process is not None and template.ready is not None
    bwrap, ready = template.process.pid, template.ready.host_pid
    (template_pid,) = template_pids(pool)
    os.kill(bwrap, signal.SIGSTOP)
    resume = threading.Timer(0.3, continue_, (bwrap,))
    try:
        os.kill(template_pid, signal.SIGKILL)
        os.kill(ready, signal.SIGKILL)
        wait_for_exit(ready)
        assert template.alive(), "the pool already saw the template's death: this test would prove nothing"
        resume.start()
        report = grade(adder, adder_correct, pool=pool)
    finally:
        resume.cancel()
        continue_(bwrap)
    assert report.solved, [(c.id, c.message) for c in report.checks]
    wait_until_all_idle(pool)
    assert template_pids(pool) != [template_pid]


def test_misbehaving_children_do_not_take_the_template_down(
    fresh_pool: Callable[[int], WorkerPool], template_pids: Callable[[WorkerPool], list[int]], adder: Problem,
    adder_correct: str,
) -> None:
    pool = fresh_pool(1)
    assert grade(adder, adder_correct, pool=pool).solved
    wait_until_all_idle(pool)
    (template,) = template_pids(pool)
    for name in ("segfault", "memory_bomb", "memory_bomb_processes", "fork_bomb"):
        report = grade(adder, submission(name), pool=pool)
        assert not report.solved, name
    hang = grade(adder, "import time\n\ndef add_one(x):\n    time.sleep(100)\n", pool=pool)
    assert "time limit 3 s exceeded" in hang.checks[0].message
    assert grade(adder, adder_correct, pool=pool).solved
    wait_until_all_idle(pool)
    assert template_pids(pool) == [template], "a child's crash, hang or memory use replaced the template"


def test_a_submission_that_kills_its_template(grade_code: GradeCode) -> None:
    report = grade_code(submission("kills_template") + "\n\ndef scaled_sum(x, factor):\n    return x.sum()\n")
    assert_unsolved_within(report, 60)
    assert "expected" in messages(report)["scaled_sum.values"]
    # the autouse check then grades the correct solution on the same pool and waits for both templates
