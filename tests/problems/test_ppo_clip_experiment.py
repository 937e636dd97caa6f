"""The PPO experiment check, graded through the sandbox: the learner's bandit training runs in the worker in one
request and is accepted only when one more request, replaying every step from the judge's own states, answers it
bit for bit; anything else is charted a step a request, as before, with the same series."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from grader.interleave import Answer, Request
from grader.judge import grade
from grader.messages import CallsRequest
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import Report
from grader.session import WorkerSession

PROBLEM = load_problem("ppo_clip")
REFERENCE = PROBLEM.folder.joinpath("reference.py").read_text()
STEPS = 48  # 12 iterations of 4 epochs

# The same function, but its first 96 answers (the worker's own run) are a hair off: the replay disagrees with the
# run, and the check charts the training a step a request with the exact answers.
OFF_IN_THE_RUN = REFERENCE.replace(
    "    return _masked_mean(_surrogate_terms(logp_new, logp_old, advantages, clip_eps), mask)\n",
    "    CALLS.append(1)\n"
    "    scale = 1.0 + 1e-9 if len(CALLS) <= 96 else 1.0\n"
    "    return _masked_mean(_surrogate_terms(logp_new, logp_old, advantages, clip_eps), mask) * scale\n",
    1,
) + "\nCALLS = []\n"


@pytest.fixture(scope="module")
def experiment_only() -> Problem:
    return dataclasses.replace(PROBLEM, checks=tuple(c for c in PROBLEM.checks if c.id == "experiment.bandit"))


@pytest.fixture
def requests(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of calls in each request the judge sends, alone or grouped with others."""
    sizes: list[int] = []
    calls, grouped = WorkerSession.calls, WorkerSession.grouped_calls

    def counting(self: WorkerSession, request: CallsRequest, *args: Any, **kwargs: Any) -> Answer:
        sizes.append(len(request.calls))
        return calls(self, request, *args, **kwargs)

    def counting_grouped(self: WorkerSession, pending: list[Request]) -> Iterator[Answer]:
        for index, answer in enumerate(grouped(self, pending)):
            sizes.append(len(pending[index].message.calls))
            yield answer

    monkeypatch.setattr(WorkerSession, "calls", counting)
    monkeypatch.setattr(WorkerSession, "grouped_calls", counting_grouped)
    return sizes


def series_of(report: Report) -> dict[str, list[float | None]]:
    (result,) = report.checks
    assert result.status == "passed", result.message
    assert report.experiment is not None
    assert report.experiment.steps == list(range(1, 13))
    return report.experiment.series


def test_the_reference_trains_in_one_request_and_is_replayed_in_one_more(
        experiment_only: Problem, sandbox_pool: WorkerPool, requests: list[int]) -> None:
    series_of(grade(experiment_only, REFERENCE, pool=sandbox_pool))
    assert requests == [1, 2 * STEPS]  # the worker's run, then every step's two calls again


def test_a_run_the_replay_disagrees_with_is_charted_a_step_a_request(
        experiment_only: Problem, sandbox_pool: WorkerPool, requests: list[int]) -> None:
    series_of(grade(experiment_only, OFF_IN_THE_RUN, pool=sandbox_pool))
    assert requests == [1, 2 * STEPS] + [2] * STEPS


def test_the_chart_of_the_one_request_run_is_the_step_a_request_chart(
        experiment_only: Problem, sandbox_pool: WorkerPool) -> None:
    accepted = series_of(grade(experiment_only, REFERENCE, pool=sandbox_pool))
    stepped = series_of(grade(experiment_only, OFF_IN_THE_RUN, pool=sandbox_pool))
    assert accepted == stepped


def test_a_function_that_fails_in_the_run_fails_the_check_in_its_own_words(
        experiment_only: Problem, sandbox_pool: WorkerPool) -> None:
    broken = REFERENCE.replace("    check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask)\n",
                               "    check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask)\n"
                               "    if clip_eps > 1:\n        raise RuntimeError('no large clip_eps here')\n", 1)
    report = grade(experiment_only, broken, pool=sandbox_pool)
    (result,) = report.checks
    assert result.status != "passed"
    assert "no large clip_eps here" in (result.message or "")
    assert report.experiment is None
