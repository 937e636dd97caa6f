"""A real problem graded through the session's warm pool on an emulated machine (the guest of `make
test-cgroup2`): MoCo's reference is solved and a known-wrong mutant is not, both in the sandbox, and the report
is what `python -m grader grade moco FILE --json` prints (the same judge, pool and report; the CLI only adds a
pool of its own, which would cost the guest another template start per grading).

Runs where PAPERLAB_SLOW_MACHINE is set (the guest sets it); elsewhere the problem selftests grade every
problem's reference and mutants at full speed."""

from __future__ import annotations

import json
import os

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import load_problem
from tests.conftest import REPO

pytestmark = pytest.mark.skipif(not os.environ.get("PAPERLAB_SLOW_MACHINE"),
                                reason="for emulated machines (make test-cgroup2); the selftests cover this here")

MOCO = REPO / "problems" / "moco"


@pytest.mark.parametrize(("submission", "solved"), [("reference.py", True), ("mutants/ema_in_place.py", False)],
                         ids=["correct", "known-wrong"])
def test_moco_is_graded_in_the_sandbox_with_the_expected_verdict(sandbox_pool: WorkerPool, submission: str,
                                                                 solved: bool) -> None:
    report = json.loads(grade(load_problem(MOCO), (MOCO / submission).read_text(), pool=sandbox_pool)
                        .model_dump_json())
    failing = [f"{check['id']}: {check['message'][:200]}" for check in report["checks"] if check["status"] != "passed"]
    assert report["sandbox"] == "bubblewrap"
    assert report["solved"] is solved, failing
    if not solved:
        assert failing, "a wrong submission fails at least one check"
