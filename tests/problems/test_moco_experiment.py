"""The MoCo experiment check, graded through the sandbox: the learner's own chained run, its charts from step 0,
and the teacher-forced replay that names the first function to depart."""

import dataclasses

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import CheckResult

REFERENCE = load_problem("moco").folder.joinpath("reference.py").read_text()
SERIES = ["loss", "param_distance", "pointer", "trajectory_gap_log10"]


@pytest.fixture(scope="module")
def moco_experiment_only() -> Problem:
    problem = load_problem("moco")
    return dataclasses.replace(problem, checks=tuple(c for c in problem.checks if c.id == "experiment.trajectory"))


def experiment(
    problem: Problem, code: str, pool: WorkerPool
) -> tuple[CheckResult, list[int], dict[str, list[float | None]]]:
    report = grade(problem, code, pool=pool)
    (result,) = report.checks
    if report.experiment is None:
        return result, [], {}
    return result, report.experiment.steps, report.experiment.series


def finite(values: list[float | None]) -> list[float]:
    """The values, each a number: a series holds None where a value was not finite."""
    assert None not in values, values
    return [value for value in values if value is not None]


def mutated(old: str, new: str) -> str:
    assert old in REFERENCE, old
    return REFERENCE.replace(old, new)


def test_the_reference_run_stays_on_the_trajectory_from_step_0_to_12(
    moco_experiment_only: Problem, sandbox_pool: WorkerPool
) -> None:
    result, steps, series = experiment(moco_experiment_only, REFERENCE, sandbox_pool)
    assert result.status == "passed", result.message
    assert steps == list(range(13))
    assert sorted(series) == SERIES
    assert all(len(values) == 13 for values in series.values())
    assert series["param_distance"][0] == 0.0  # both encoders start equal
    assert series["param_distance"][1] is not None and series["param_distance"][1] > 0.0
    assert series["pointer"][:5] == [0.0, 2.0, 4.0, 1.0, 3.0]  # batch 2 into five slots, wrapping around
    assert max(finite(series["trajectory_gap_log10"])) < -9  # differences below 1e-9: rounding


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
            0, "loss", id="loss slightly off",
        ),
    ],
)
def test_the_replay_names_the_step_and_function_that_first_depart(
    moco_experiment_only: Problem, sandbox_pool: WorkerPool, old: str, new: str, step: int, state: str
) -> None:
    result, _, _ = experiment(moco_experiment_only, mutated(old, new), sandbox_pool)
    assert result.status == "failed"
    assert f"leaves the independent trajectory at step {step}, in the {state}" in result.message
    assert "it is also the first step to depart" in result.message


def test_the_charts_are_the_learners_own_run_after_it_departs(
    moco_experiment_only: Problem, sandbox_pool: WorkerPool
) -> None:
    """A pointer that resets to 0 instead of wrapping: the replay would put it back on the trajectory at every
    step (2, 4, 1, 3, 0, ...); the learner's own run keeps going round 0, 2, 4."""
    code = mutated(
        "return new_queue, (pointer + batch) % size",
        "return new_queue, (pointer + batch) % size if pointer + batch < size else 0",
    )
    result, steps, series = experiment(moco_experiment_only, code, sandbox_pool)
    assert result.status == "failed"
    assert "leaves the independent trajectory at step 3, in the pointer (expected 1, got 0)" in result.message
    assert steps == list(range(13))
    assert series["pointer"] == [0.0, 2.0, 4.0] * 4 + [0.0]
    gaps = series["trajectory_gap_log10"]
    # the wrong pointer of state 3 shows in the dictionary at step 4
    assert gaps[4] is not None and max(finite(gaps[:4])) < -9 < -1 < gaps[4]


def test_a_function_that_raises_part_way_ends_the_run_and_the_chart_there(
    moco_experiment_only: Problem, sandbox_pool: WorkerPool
) -> None:
    validation = "    validate_enqueue_inputs(queue, keys, pointer)\n"
    code = mutated(validation, validation + "    if pointer == 4:\n        raise RuntimeError('no slot 4')\n")
    result, steps, series = experiment(moco_experiment_only, code, sandbox_pool)
    assert result.status == "failed"
    assert "RuntimeError: no slot 4" in result.message
    assert "enqueue(" in result.message
    assert steps == [0, 1, 2]  # states 0, 1 and 2 were reached; step 3 could not finish
    assert series["pointer"] == [0.0, 2.0, 4.0]


# ------------------------------------------------------------------ the run in one request (helpers.experiment_run)

INSIDE_THE_RUN = "__import__('sys')._getframe(1).f_globals.get('__name__') == 'helpers'"  # the helper's call


def test_a_run_on_the_trajectory_takes_four_requests(
    moco_experiment_only: Problem, sandbox_pool: WorkerPool, request_sizes: list[int]
) -> None:
    # the run in the worker, then moco_loss, momentum_update and enqueue made again from its states: not 37
    result, _, _ = experiment(moco_experiment_only, REFERENCE, sandbox_pool)
    assert result.status == "passed", result.message
    assert len(request_sizes) == 4


RIGHT_EMA = "m * key.detach() + (1.0 - m) * query.detach()"
SWAPPED_EMA = "(1.0 - m) * key.detach() + m * query.detach()"


def ema_by_caller(inside: str, outside: str) -> str:
    """The reference, its momentum_update answering `inside` when the problem's helper calls it, else `outside`."""
    return mutated(f"return {RIGHT_EMA}",
                   f"if {INSIDE_THE_RUN}:\n            return {inside}\n        return {outside}")


def test_a_function_that_is_right_only_inside_the_run_forges_nothing(
    moco_experiment_only: Problem, sandbox_pool: WorkerPool, request_sizes: list[int]
) -> None:
    # It answers the helper's calls rightly and every other call with swapped EMA weights: the judge's replay of
    # its steps disagrees with the run, so the run is graded step by step, where the swap shows at step 1.
    code = ema_by_caller(inside=RIGHT_EMA, outside=SWAPPED_EMA)
    result, _, _ = experiment(moco_experiment_only, code, sandbox_pool)
    assert result.status == "failed"
    assert "leaves the independent trajectory at step 1, in the key encoder" in result.message
    assert len(request_sizes) > 4


def test_a_function_that_is_wrong_only_inside_the_run_is_graded_by_its_own_calls(
    moco_experiment_only: Problem, sandbox_pool: WorkerPool
) -> None:
    code = ema_by_caller(inside=SWAPPED_EMA, outside=RIGHT_EMA)
    result, steps, series = experiment(moco_experiment_only, code, sandbox_pool)
    assert result.status == "passed", result.message
    assert steps == list(range(13)) and max(finite(series["trajectory_gap_log10"])) < -9
