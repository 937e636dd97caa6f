"""Every folder under problems/ passes `python -m grader selftest`: one test case per folder, so `make test` has
one runner and a new problem is covered by being added.

The cases share the session's warm sandboxed pool (tests/conftest.py), as the self-test grades exactly as the
site does. The time limit is the whole self-test of one problem, dozens of gradings, not one call."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from grader.pool import WorkerPool
from grader.selftest import problem_folders, run_selftest

FOLDERS = problem_folders()


def test_there_are_problems_to_selftest() -> None:
    # A wrong discovery path would make the parametrised test below vanish and the suite pass with no problem.
    assert {"moco", "simclr"} <= {folder.name for folder in FOLDERS}


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.timeout(900)
@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_problem_is_sound(folder: Path, sandbox_pool: WorkerPool) -> None:
    out = io.StringIO()
    sound = run_selftest([folder], unsafe=False, stream=out, pool=sandbox_pool)
    assert sound, out.getvalue()
