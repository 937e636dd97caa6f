"""Hostile submissions against the sandbox. Every test grades through the session's warm pool; after each one
the same pool must still grade the correct adder solution and hold no process or cgroup of the test's."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.hostile)
            item.add_marker(pytest.mark.sandbox)


def wait_until_all_idle(pool: WorkerPool, timeout: float = 120.0) -> None:
    """A template a submission killed is replaced in the background; wait for the pool to be whole again."""
    end = time.monotonic() + timeout
    while pool._idle.qsize() < pool.size:  # noqa: SLF001 - no public view of the idle templates
        assert time.monotonic() < end, "the pool did not get all its templates back"
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def _grader_survives(
    sandbox_pool: WorkerPool, adder: Problem, adder_correct: str, assert_clean: Callable[[WorkerPool], None]
) -> Iterator[None]:
    yield
    report = grade(adder, adder_correct, pool=sandbox_pool)
    assert report.solved, f"the pool could not grade the correct solution right after: {report.model_dump_json()}"
    wait_until_all_idle(sandbox_pool)
    assert_clean(sandbox_pool)
