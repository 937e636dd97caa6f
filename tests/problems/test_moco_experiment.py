"""The MoCo experiment check, graded through the sandbox: what it says about a right run and a wrong one."""

import dataclasses

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import CheckResult

REFERENCE = load_problem("moco").folder.joinpath("reference.py").read_text()


@pytest.fixture(scope="module")
def moco_experiment_only() -> Problem:
    problem = load_problem("moco")
    return dataclasses.replace(problem, checks=tuple(c for c in problem.checks if c.id == "experiment.trajectory"))


def experiment(problem: Problem, code: str, pool: WorkerPool) -> tuple[CheckResult, dict[str, list[float]]]:
    report = grade(problem, code, pool=pool)
    (result,) = report.checks
    return result, (report.experiment.series if report.experiment else {})


def test_the_reference_matches_at_every_step_and_records_twelve_points(moco_experiment_only, sandbox_pool):
    result, series = experiment(moco_experiment_only, REFERENCE, sandbox_pool)
    assert result.status == "passed", result.message
    assert sorted(series) == ["loss", "param_distance", "pointer"]
    assert all(len(values) == 12 for values in series.values())
    assert series["pointer"][:3] == [2.0, 4.0, 1.0]  # batch 2 into five slots, wrapping around


@pytest.mark.parametrize(
    ("old", "new", "step", "state"),
    [
        pytest.param(
            "return m * key.detach() + (1.0 - m) * query.detach()",
            "return (1.0 - m) * key.detach() + m * query.detach()",
            1, "key encoder", id="EMA weights swapped",
        ),
        pytest.param(
            "return new_queue, (pointer + batch) % size",
            "return new_queue, (pointer + batch) % size if pointer + batch < size else 0",
            3, "pointer", id="pointer reset instead of wrapped",
        ),
        pytest.param(
            "positive = (q * k).sum(dim=1, keepdim=True) / temperature",
            "positive = (q * k).sum(dim=1, keepdim=True) / temperature * 1.0001",
            1, "loss", id="loss slightly off",
        ),
    ],
)
def test_a_wrong_function_is_named_at_the_step_where_it_first_departs(
    moco_experiment_only, sandbox_pool, old, new, step, state
):
    assert old in REFERENCE
    result, _ = experiment(moco_experiment_only, REFERENCE.replace(old, new), sandbox_pool)
    assert result.status == "failed"
    assert f"at step {step} of 12, in the {state}" in result.message
