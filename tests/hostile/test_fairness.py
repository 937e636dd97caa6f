"""Fairness, in the sandbox: required checks run first, and an advisory check's limit never stops or fails a
required one. A correct solution whose advisory call loops past the call limit is solved; a required check's
own limit still fails the submission."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import torch

from grader.checks import Check
from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem
from grader.report import Report

GradeCode = Callable[..., Report]

# The adder, correct everywhere except on a 7-element input (the advisory check's "paper-sized" input), where
# add_one never returns; or on a 5-element input, which a required check passes.
LOOPS_ON = '''
import torch


def add_one(x):
    if x.numel() == {size}:
        while True:
            pass
    return x + 1


def scaled_sum(x, factor):
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        raise TypeError("factor must be a Python number")
    return x.sum() * factor
'''


def paper_sized(sub: Any, ref: Any) -> None:
    x = torch.zeros(7)
    assert torch.equal(sub.add_one(x), ref.add_one(x))


def required_five(sub: Any, ref: Any) -> None:
    x = torch.arange(5.0)
    assert torch.equal(sub.add_one(x), ref.add_one(x))


def with_checks(adder: Problem, *extra: Check) -> Problem:
    """The adder with `extra` declared first, so that declared order and run order differ."""
    return dataclasses.replace(adder, checks=(*extra, *adder.checks))


ADVISORY = Check(id="extra.paper_sized", title="add_one at paper size (advisory)", group="extra", required=False,
                 function=paper_sized, wants_context=False)


def test_an_advisory_check_that_loops_past_its_call_limit_leaves_a_correct_solution_solved(
    adder: Problem, sandbox_pool: WorkerPool
) -> None:
    problem = with_checks(adder, ADVISORY)
    ran: list[str] = []
    report = grade(problem, LOOPS_ON.format(size=7), pool=sandbox_pool, on_check=lambda r: ran.append(r.id))
    assert ran == [check.id for check in adder.checks] + ["extra.paper_sized"]  # the required ones first
    assert [check.id for check in report.checks] == [check.id for check in problem.checks]  # shown as declared
    advisory = report.checks[0]
    assert (advisory.status, advisory.limit) == ("failed", "time")
    assert advisory.message.startswith("time limit 3 s exceeded in add_one(x=float32[7])"), advisory.message
    assert all(check.status == "passed" for check in report.checks[1:]), report.checks
    assert (report.solved, report.status) == (True, "passed")


def test_a_required_check_that_loops_past_its_call_limit_still_fails(adder: Problem, sandbox_pool: WorkerPool
                                                                     ) -> None:
    five = Check(id="add_one.five", title="add_one on five elements", group="add_one", required=True,
                 function=required_five, wants_context=False)
    report = grade(with_checks(adder, ADVISORY, five), LOOPS_ON.format(size=5), pool=sandbox_pool)
    verdicts = {check.id: (check.status, check.limit) for check in report.checks}
    assert verdicts["add_one.five"] == ("failed", "time")
    assert report.solved is False
