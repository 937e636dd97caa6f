"""Sending the calls of several checks in one round trip changes no verdict: solutions kept with every problem
in problems/ (reference, starter, variants, mutants) get the same statuses and messages as when each check's
request goes alone.

Merging is the engine's, not a problem's: it groups requests whatever they compute. So every problem is tried
with its reference, its starter, its first variant and one mutant (the one whose name has the smallest CRC-32),
which changes with the catalogue but never from run to run. Grading all of them twice each took a third of CI's
time, and a fifth of them still a sixth of it at 37 problems; selftest already grades every mutant once."""

import functools
import zlib

import pytest

from grader import judge
from grader.interleave import Interleaver
from grader.pool import WorkerPool
from grader.problems import Problem, discover
from grader.report import Report

# Two gradings per kept solution of every problem: minutes, not seconds.
pytestmark = pytest.mark.slow

_FOUND, _INVALID = discover()
PROBLEMS = {problem.slug: problem for problem in _FOUND}


def solutions(problem: Problem) -> list[tuple[str, str]]:
    """(name, code) of the kept solutions tried; mutants as graded (a patch applied to the reference)."""
    folder = problem.folder
    files = [folder / "reference.py", folder / "starter.py", *sorted((folder / "variants").glob("*.py"))[:1]]
    mutants = sorted(problem.mutant_sources(), key=lambda m: zlib.crc32(m.name.encode()))[:1]
    return [(str(path.relative_to(folder)), path.read_text()) for path in files] + [
        (f"mutants/{mutant.name}", mutant.code) for mutant in mutants]


CASES = [
    pytest.param(slug, code, id=f"{slug}/{name}")
    for slug, problem in PROBLEMS.items()
    for name, code in solutions(problem)
]


def verdicts(report: Report) -> tuple[object, ...]:
    return report.solved, report.error, [(c.id, c.status, c.message, c.output) for c in report.checks]


def test_every_problem_folder_is_discovered() -> None:
    assert _INVALID == {}, _INVALID  # a folder that does not load would silently drop out of the table below
    assert {"moco", "simclr"} <= set(PROBLEMS)


def test_every_problem_is_tried_with_mutants() -> None:
    tried = {case.values[0] for case in CASES if "/mutants/" in str(case.id)}  # each id is an f-string
    assert tried == set(PROBLEMS), set(PROBLEMS) - tried


@pytest.mark.parametrize(("slug", "code"), CASES)
def test_merged_and_one_request_at_a_time_give_the_same_report(
    slug: str, code: str, sandbox_pool: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    problem = PROBLEMS[slug]
    merged = judge.grade(problem, code, pool=sandbox_pool)
    monkeypatch.setattr(judge, "Interleaver", functools.partial(Interleaver, merge=False))
    alone = judge.grade(problem, code, pool=sandbox_pool)
    assert verdicts(merged) == verdicts(alone)
