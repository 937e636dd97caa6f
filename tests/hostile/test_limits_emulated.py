"""The memory caps and the cross-child isolation on a machine too slow for the adder's 3 s call limit: the
guest of `make test-cgroup2`, under software emulation, where filling a 50 MiB buffer takes seconds. Same
submissions and verdicts as test_limits.py and test_isolation.py, with the problem's time limits stretched, so
that what decides the verdict is the cgroup's memory cap and the rlimits, not the clock.

Runs where PAPERLAB_SLOW_MACHINE is set (the guest sets it); elsewhere test_limits.py and test_isolation.py
cover the same ground at full speed."""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable

import pytest

from grader.pool import WorkerPool
from grader.problems import Problem
from grader.report import Report
from tests.hostile.hostile_support import messages, submission
from tests.hostile.test_isolation import TMP_SPY

pytestmark = pytest.mark.skipif(not os.environ.get("PAPERLAB_SLOW_MACHINE"),
                                reason="for emulated machines (make test-cgroup2); test_limits.py covers this here")

GradeCode = Callable[..., Report]
SPY_WINDOW = "time.time() - start < 2.0"


@pytest.fixture
def stretched(adder: Problem) -> Problem:
    """The adder with ten times its time limits and the same memory and process caps."""
    limits = adder.limits
    longer = limits.model_copy(update={
        "call_timeout_s": limits.call_timeout_s * 10, "load_timeout_s": limits.load_timeout_s * 10,
        "total_timeout_s": limits.total_timeout_s * 10, "cpu_time_s": limits.cpu_time_s * 10})
    return dataclasses.replace(adder, spec=adder.spec.model_copy(update={"limits": longer}))


def test_memory_bomb_hits_the_memory_limit(grade_code: GradeCode, stretched: Problem) -> None:
    found = messages(grade_code(submission("memory_bomb"), problem=stretched))
    assert found["add_one.values"].startswith("add_one(x=float32[2, 3]) raised MemoryError"), found
    assert "memory limit 256 MiB" in found["add_one.values"]
    assert "can't allocate memory" in found["scaled_sum.values"]


def test_memory_bomb_across_processes_hits_the_cgroup_limit(grade_code: GradeCode, stretched: Problem) -> None:
    found = messages(grade_code(submission("memory_bomb_processes"), problem=stretched))
    assert found["add_one.values"] == "memory limit 256 MiB exceeded during add_one(x=float32[2, 3])", found


def test_concurrent_submissions_cannot_see_each_others_tmp(grade_code: GradeCode, stretched: Problem,
                                                           sandbox_pool: WorkerPool) -> None:
    # The pool keeps as many templates as fit in memory: with one, the two submissions would run in turn.
    assert sandbox_pool.size >= 2, f"only {sandbox_pool.size} warm template fits in this machine's memory"
    assert SPY_WINDOW in TMP_SPY
    spy = TMP_SPY.replace(SPY_WINDOW, "time.time() - start < 20.0")  # long enough to overlap when emulated
    reports: dict[str, Report] = {}
    barrier = threading.Barrier(2)

    def run(tag: str) -> None:
        barrier.wait()
        reports[tag] = grade_code(spy.format(tag=tag), problem=stretched)

    threads = [threading.Thread(target=run, args=(tag,)) for tag in ("alpha", "beta")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    spans = {}
    for tag, report in reports.items():
        words = report.checks[0].output.split(" ", 4)
        assert words[0] == "SPY" and words[1] == tag, report.checks[0].output
        spans[tag] = (float(words[2]), float(words[3]))
        assert words[4].strip() == f"['secret-{tag}']", words[4]
    assert set(spans) == {"alpha", "beta"}
    (a_start, a_end), (b_start, b_end) = spans["alpha"], spans["beta"]
    assert a_start < b_end and b_start < a_end, f"the two submissions did not overlap: {spans}"
