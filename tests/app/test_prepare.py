"""The grading host prepares the catalogue after start-up (grader/prepare.py), never while it grades, and /healthz
says how far it got."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import partial
from types import SimpleNamespace
from typing import Any

import pytest

from app.grading.inprocess import InProcessBackend
from app.state import BackendContext, BackendFactory
from grader.refcache import answers_for
from tests import waiting
from tests.app.app_support import CORRECT, VERDICT_TIMEOUT_S, HeldGrader, NoPool, submit, wait_for_verdict
from tests.app.conftest import Server

eventually = partial(waiting.eventually, within_s=VERDICT_TIMEOUT_S)


def problem_with_steps(slug: str, *steps: Callable[[], object]) -> Any:
    return SimpleNamespace(slug=slug, checks=[SimpleNamespace(preparations=steps)])


def preparing_backend(grader: HeldGrader, extra: list[Any]) -> BackendFactory:
    """The in-process backend with preparing on, over the catalogue and `extra` problems (after it)."""
    def factory(context: BackendContext) -> InProcessBackend:
        problems = {**context.catalog, **{problem.slug: problem for problem in extra}}
        return InProcessBackend(session_factory=context.session_factory, problems=problems, bus=context.bus,
                                concurrency=1, queue_limit=10, grade=grader, pool_factory=NoPool,
                                prepare_problems=True)

    return factory


def test_healthz_counts_the_problems_prepared(make_server: Callable[..., Server]) -> None:
    client = make_server(prepare_problems=True).client
    eventually(lambda: client.get("/healthz").json()["problems_prepared"] == client.get("/healthz").json()["problems"],
               "every problem prepared")


def all_prepared(server: Server) -> bool:
    health = server.client.get("/healthz").json()
    return bool(health["problems_prepared"] == health["problems"])


def test_the_host_grades_each_problem_s_reference_while_it_prepares(make_server: Callable[..., Server],
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="grader.prepare"):
        server = make_server(prepare_problems=True)
        eventually(lambda: all_prepared(server), "every problem prepared")
    assert all(len(answers_for(problem)) > 0 for problem in server.app.state.paperlab.catalog.values())
    assert "does not pass its own checks" not in caplog.text


def test_a_stand_in_grader_is_never_asked_to_grade_a_reference(make_server: Callable[..., Server]) -> None:
    grader = HeldGrader()
    server = make_server(backend_factory=preparing_backend(grader, []))
    eventually(lambda: all_prepared(server), "every problem prepared")
    assert grader.calls == []


def test_healthz_says_nothing_is_prepared_here_when_preparing_is_off(make_server: Callable[..., Server]) -> None:
    assert make_server(prepare_problems=False).client.get("/healthz").json()["problems_prepared"] is None


def test_no_step_is_taken_while_a_submission_is_graded(make_server: Callable[..., Server]) -> None:
    grader, taken, go, ran = HeldGrader(), threading.Event(), threading.Event(), []

    def first() -> None:  # taken before the submission arrives; it ends while the submission is being graded
        taken.set()
        go.wait(VERDICT_TIMEOUT_S)
        ran.append("first")

    slow = problem_with_steps("slow", first, lambda: ran.append("second"))
    server = make_server(backend_factory=preparing_backend(grader, [slow]))
    # The steps run at the lowest priority, after the whole catalogue's: on a busy machine a submission sent at once
    # arrived before `first` was taken, and nothing was under way to finish.
    assert taken.wait(VERDICT_TIMEOUT_S)
    response = submit(server.client, CORRECT)
    assert response.status_code == 202
    assert grader.started.wait(VERDICT_TIMEOUT_S)
    go.set()
    eventually(lambda: ran == ["first"], "the step under way finished")
    time.sleep(0.3)
    assert ran == ["first"]  # the next waits for the grading
    assert server.client.get("/healthz").json()["problems_prepared"] == 1  # add_one, which has no steps
    grader.release.set()
    wait_for_verdict(server.client, response.json()["id"])
    eventually(lambda: ran == ["first", "second"], "the rest once the host was idle")
    eventually(lambda: server.client.get("/healthz").json()["problems_prepared"] == 2, "both problems prepared")
