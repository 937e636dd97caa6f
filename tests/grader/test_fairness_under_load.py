"""A verdict does not depend on how busy the grading machine is: MoCo's reference and one of its mutants get the
same status for every check on a quiet machine and with four busy-looping processes per core running (a call's
time limit and the budgets count the learner's time, not the time it waited for a CPU)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import Report

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

HOGS_PER_CORE = 4
MUTANT = "ema_in_place.py"  # fails required checks of momentum_update, and only those


@contextmanager
def cpu_hog(processes: int) -> Iterator[None]:
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


def statuses(report: Report) -> list[tuple[str, str, str | None]]:
    return [(check.id, check.status, check.limit) for check in report.checks]


def test_a_busy_machine_changes_no_check_status(sandbox_pool: WorkerPool) -> None:
    moco = load_problem("moco")
    mutant = next(source for source in moco.mutant_sources() if source.name == MUTANT)
    codes = {"reference": (moco.folder / "reference.py").read_text(), MUTANT: mutant.code}
    quiet = {name: grade(moco, code, pool=sandbox_pool) for name, code in codes.items()}
    with cpu_hog(HOGS_PER_CORE * (os.cpu_count() or 1)):
        busy = {name: grade(moco, code, pool=sandbox_pool) for name, code in codes.items()}
    assert quiet["reference"].solved and not quiet[MUTANT].solved
    for name in codes:
        assert busy[name].error is None and quiet[name].error is None
        assert (busy[name].solved, statuses(busy[name])) == (quiet[name].solved, statuses(quiet[name])), name


# Correct, and each call computes for 0.4 s of CPU time: within a 1 s call limit on any machine, though on one
# running four busy loops per core each call takes about 2 s by the wall clock.
COMPUTES_FOR_A_WHILE = '''
import time


def _compute(seconds):
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass


def add_one(x):
    _compute(0.4)
    return x + 1


def scaled_sum(x, factor):
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        raise TypeError("factor must be a Python number")
    return x.sum() * factor
'''


def test_a_call_that_computes_within_its_limit_passes_however_busy_the_machine(
    adder: Problem, sandbox_pool: WorkerPool
) -> None:
    limits = adder.limits.model_copy(update={"call_timeout_s": 1.0})
    problem = dataclasses.replace(adder, spec=adder.spec.model_copy(update={"limits": limits}))
    quiet = grade(problem, COMPUTES_FOR_A_WHILE, pool=sandbox_pool)
    with cpu_hog(HOGS_PER_CORE * (os.cpu_count() or 1)):
        busy = grade(problem, COMPUTES_FOR_A_WHILE, pool=sandbox_pool)
    assert quiet.solved, statuses(quiet)
    assert busy.solved, [(check.id, check.message) for check in busy.checks if check.status != "passed"]
