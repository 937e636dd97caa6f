"""Sending the calls of several checks in one round trip changes no verdict: every solution kept with the MoCo
and SimCLR problems (reference, starter, variants, mutants) gets the same statuses and messages as when each
check's request goes alone."""

import functools
from pathlib import Path

import pytest

from grader import judge
from grader.interleave import Interleaver
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import Report

PROBLEMS = {slug: load_problem(slug) for slug in ("moco", "simclr")}


def solutions(problem: Problem) -> list[Path]:
    folder = problem.folder
    return [folder / "reference.py", folder / "starter.py", *sorted((folder / "variants").glob("*.py")),
            *sorted((folder / "mutants").glob("*.py"))]


CASES = [
    pytest.param(slug, path, id=f"{slug}/{path.relative_to(problem.folder)}")
    for slug, problem in PROBLEMS.items()
    for path in solutions(problem)
]


def verdicts(report: Report) -> tuple[object, ...]:
    return report.solved, report.error, [(c.id, c.status, c.message, c.output) for c in report.checks]


@pytest.mark.parametrize(("slug", "path"), CASES)
def test_merged_and_one_request_at_a_time_give_the_same_report(
    slug: str, path: Path, sandbox_pool: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem, code = PROBLEMS[slug], path.read_text()
    merged = judge.grade(problem, code, pool=sandbox_pool)
    monkeypatch.setattr(judge, "Interleaver", functools.partial(Interleaver, merge=False))
    alone = judge.grade(problem, code, pool=sandbox_pool)
    assert verdicts(merged) == verdicts(alone)
