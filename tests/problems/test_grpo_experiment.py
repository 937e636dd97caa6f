"""The GRPO experiment check, graded through the sandbox: the learner's toy training runs in the worker in one
request and is accepted only when two more requests, replaying every step's calls from the judge's own states,
answer it bit for bit; anything else is charted a step a request, as before, with the same series."""

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

PROBLEM = load_problem("grpo")
REFERENCE = PROBLEM.folder.joinpath("reference.py").read_text()
STEPS, INNER = 20, 2

# The same functions, but the loss's first 80 answers (the worker's own run) are a hair off: the replay disagrees
# with the run, and the check charts the training a step a request with the exact answers.
OFF_IN_THE_RUN = REFERENCE.replace(
    "    return -_per_sequence_mean(objective, mask)\n",
    "    CALLS.append(1)\n"
    "    scale = 1.0 + 1e-9 if len(CALLS) <= 80 else 1.0\n"
    "    return -_per_sequence_mean(objective, mask) * scale\n",
    1,
) + "\nCALLS = []\n"


@pytest.fixture(scope="module")
def experiment_only() -> Problem:
    return dataclasses.replace(PROBLEM, checks=tuple(c for c in PROBLEM.checks if c.id == "experiment.training"))


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
    assert report.experiment.steps == list(range(1, STEPS + 1))
    return report.experiment.series


def test_the_reference_trains_in_one_request_and_is_replayed_in_two_more(
        experiment_only: Problem, sandbox_pool: WorkerPool, requests: list[int]) -> None:
    series_of(grade(experiment_only, REFERENCE, pool=sandbox_pool))
    assert requests == [1, 2 * STEPS, 2 * INNER * STEPS]  # the worker's run, then each function's calls again


def test_a_run_the_replay_disagrees_with_is_charted_a_step_a_request(
        experiment_only: Problem, sandbox_pool: WorkerPool, requests: list[int]) -> None:
    series_of(grade(experiment_only, OFF_IN_THE_RUN, pool=sandbox_pool))
    assert requests == [1, 2 * STEPS, 2 * INNER * STEPS] + [2] * (STEPS * (1 + INNER))


def test_the_chart_of_the_one_request_run_is_the_step_a_request_chart(
        experiment_only: Problem, sandbox_pool: WorkerPool) -> None:
    accepted = series_of(grade(experiment_only, REFERENCE, pool=sandbox_pool))
    stepped = series_of(grade(experiment_only, OFF_IN_THE_RUN, pool=sandbox_pool))
    assert accepted == stepped


def test_advantages_of_another_shape_fail_the_check_in_its_own_words(
        experiment_only: Problem, sandbox_pool: WorkerPool) -> None:
    flat = REFERENCE.replace("    return ((grouped - mean) / (std + eps)).reshape(-1)\n",
                             "    return ((grouped - mean) / (std + eps))\n", 1)
    report = grade(experiment_only, flat, pool=sandbox_pool)
    (result,) = report.checks
    assert result.status != "passed"
    assert "returned another shape" in (result.message or "")
    assert report.experiment is None
