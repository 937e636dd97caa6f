"""A verdict does not depend on how busy the grading machine is: MoCo's reference and one of its mutants get the
same status for every check on a quiet machine and with four busy-looping processes per core running (a call's
time limit and the budgets count the learner's time, not the time it waited for a CPU)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import load_problem
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
