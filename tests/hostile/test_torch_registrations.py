"""Forgery through torch's public APIs: the submission shares the worker's process, and torch lets any code in
the process change what torch itself does (dispatcher kernels, modes, the autograd facts of a tensor it was
given). Each test grades a MoCo submission that is wrong in a way the checks look for, hidden by one such API,
and shows that it is not solved, and why."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import Report
from tests.hostile.hostile_support import REPO, messages, submission

MOCO_DIR = REPO / "problems" / "moco"
GradeCode = Callable[..., Report]


@pytest.fixture(scope="module")
def moco() -> Problem:
    return load_problem(MOCO_DIR)


def failing(report: Report) -> dict[str, str]:
    return {check_id: message for check_id, message in messages(report).items()
            if next(c for c in report.checks if c.id == check_id).status != "passed"}


def test_clearing_requires_grad_after_the_graph_is_built_hides_no_gradient(moco: Problem,
                                                                          sandbox_pool: WorkerPool) -> None:
    """moco_loss lets the gradient reach key and queue, then calls requires_grad_(False) on the caller's tensors:
    the worker took each argument's gradient accumulator before the call, so the gradient is still measured."""
    report = grade(moco, submission("moco_hides_gradient"), pool=sandbox_pool)
    assert not report.solved
    message = failing(report).get("moco_loss.key_and_queue_detached", "")
    assert "key.grad should be None" in message, failing(report)


AUTOGRAD_FACTS = '''
import torch

def add_one(x):
    x.requires_grad_(True)  # no byte written, no version counter moved: only the autograd facts change
    return (x + 1).detach()

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
'''


def test_a_changed_requires_grad_is_reported_as_a_modified_argument(grade_code: GradeCode) -> None:
    report = grade_code(AUTOGRAD_FACTS)
    assert not report.solved
    assert "modified its argument(s) x in place" in messages(report)["add_one.fresh_storage"]
