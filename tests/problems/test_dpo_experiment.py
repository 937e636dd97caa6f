"""The DPO experiment check, graded through the sandbox: the learner's toy training runs in the worker in one
request and is accepted only when two more requests, replaying every step's calls from the judge's own states,
answer it bit for bit; anything else is charted a step a request, as before, with the same series."""

from __future__ import annotations

import dataclasses

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import Report

PROBLEM = load_problem("dpo")
REFERENCE = PROBLEM.folder.joinpath("reference.py").read_text()
STEPS = 20  # and step 0: 21 points
LOGPROB_CALLS, LOSS_CALLS = 4 * (STEPS + 1), 2 * (STEPS + 1)

# The same functions, but the log-probs' first 84 answers (the worker's own run) are a hair off: the replay
# disagrees with the run, and the check charts the training a step a request with the exact answers.
OFF_IN_THE_RUN = REFERENCE.replace(
    "    return _masked_sum(token_logps, mask)  # [B]\n",
    "    CALLS.append(1)\n"
    "    scale = 1.0 + 1e-9 if len(CALLS) <= 84 else 1.0\n"
    "    return _masked_sum(token_logps, mask) * scale\n",
    1,
) + "\nCALLS = []\n"


@pytest.fixture(scope="module")
def experiment_only() -> Problem:
    return dataclasses.replace(PROBLEM, checks=tuple(c for c in PROBLEM.checks if c.id == "experiment.training"))


def series_of(report: Report) -> dict[str, list[float | None]]:
    (result,) = report.checks
    assert result.status == "passed", result.message
    assert report.experiment is not None
    assert report.experiment.steps == list(range(STEPS + 1))
    return report.experiment.series


def test_the_reference_trains_in_one_request_and_is_replayed_in_two_more(
        experiment_only: Problem, sandbox_pool: WorkerPool, request_sizes: list[int]) -> None:
    series_of(grade(experiment_only, REFERENCE, pool=sandbox_pool))
    assert request_sizes == [1, LOGPROB_CALLS, LOSS_CALLS]  # the worker's run, then each function's calls again


def test_a_run_the_replay_disagrees_with_is_charted_a_step_a_request(
        experiment_only: Problem, sandbox_pool: WorkerPool, request_sizes: list[int]) -> None:
    series_of(grade(experiment_only, OFF_IN_THE_RUN, pool=sandbox_pool))
    assert request_sizes == [1, LOGPROB_CALLS, LOSS_CALLS] + [4, 2] * (STEPS + 1)


def test_the_chart_of_the_one_request_run_is_the_step_a_request_chart(
        experiment_only: Problem, sandbox_pool: WorkerPool) -> None:
    accepted = series_of(grade(experiment_only, REFERENCE, pool=sandbox_pool))
    stepped = series_of(grade(experiment_only, OFF_IN_THE_RUN, pool=sandbox_pool))
    assert accepted == stepped


def test_advantages_of_another_shape_fail_the_check_in_its_own_words(
        experiment_only: Problem, sandbox_pool: WorkerPool) -> None:
    flat = REFERENCE.replace("    return _masked_sum(token_logps, mask)  # [B]\n",
                             "    return _masked_sum(token_logps, mask).unsqueeze(1)  # [B, 1]\n", 1)
    report = grade(experiment_only, flat, pool=sandbox_pool)
    (result,) = report.checks
    assert result.status != "passed"
    assert "returned another shape" in (result.message or "")
    assert report.experiment is None


INSIDE_THE_RUN = "__import__('sys')._getframe(1).f_globals.get('__name__') == 'helpers'"  # the helper's call

# Right when the worker's run calls it, its gradient doubled (the same log-probs) when the judge does.
RIGHT_ONLY_INSIDE_THE_RUN = REFERENCE.replace(
    "    return _masked_sum(token_logps, mask)  # [B]\n",
    "    logps = _masked_sum(token_logps, mask)\n"
    f"    if {INSIDE_THE_RUN}:\n"
    "        return logps\n"
    "    return 2 * logps - logps.detach()\n",
    1,
)


def test_a_function_that_is_right_only_inside_the_run_is_charted_by_its_own_calls(
        experiment_only: Problem, sandbox_pool: WorkerPool, request_sizes: list[int]) -> None:
    """The run the worker returns is the reference's, but the judge's replay of its steps gets the doubled
    gradients: the run is refused, and the chart is the one the function's own calls draw."""
    assert RIGHT_ONLY_INSIDE_THE_RUN != REFERENCE
    charted = series_of(grade(experiment_only, RIGHT_ONLY_INSIDE_THE_RUN, pool=sandbox_pool))
    assert request_sizes == [1, LOGPROB_CALLS, LOSS_CALLS] + [4, 2] * (STEPS + 1)
    assert charted != series_of(grade(experiment_only, REFERENCE, pool=sandbox_pool))
