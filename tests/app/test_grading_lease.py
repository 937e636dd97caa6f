"""How long a grading may hold a submission before the sweeper queues it again: past the longest it can last by
the wall clock, which is `wall_ceiling_factor` times its limits (they count the learner's own time)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.grading.sweeper import grading_lease_s
from grader.limits import Limits
from grader.problems import load_problem

ADDER = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "adder"


def test_the_lease_outlasts_every_budget_at_its_wall_clock_ceiling() -> None:
    adder = load_problem(ADDER)
    limits = Limits(load_timeout_s=5, total_timeout_s=20, advisory_budget_s=10, wall_ceiling_factor=4)
    problem = dataclasses.replace(adder, spec=adder.spec.model_copy(update={"limits": limits}))
    assert grading_lease_s(problem, 60.0) == (5 + 20 + 10) * 4 + 60.0


def test_without_a_problem_the_default_limits_decide() -> None:
    defaults = Limits()
    budgets = defaults.load_timeout_s + defaults.total_timeout_s + defaults.advisory_budget_s
    assert grading_lease_s(None, 1.0) == budgets * defaults.wall_ceiling_factor + 1.0


def test_the_operators_wall_factor_caps_the_problems_ceiling() -> None:
    adder = load_problem(ADDER)
    limits = Limits(load_timeout_s=5, total_timeout_s=20, advisory_budget_s=10, wall_ceiling_factor=4)
    problem = dataclasses.replace(adder, spec=adder.spec.model_copy(update={"limits": limits}))
    assert grading_lease_s(problem, 1.0, 2.0) == (5 + 20 + 10) * 2 + 1.0
    assert grading_lease_s(problem, 1.0, 9.0) == (5 + 20 + 10) * 4 + 1.0  # never past the problem's own ceiling
