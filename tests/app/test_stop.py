"""POST /api/submissions/{id}/stop, the page's Stop button: only the owner may stop a submission, only while it is
queued or running; the grading ends at once with a stored report that says "stopped by you", and the event
stream names a learner call that runs long before it ends with that report."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from app.grading.call_watch import CallWatch
from app.grading.stops import StopRegistry
from app.routes.events import running_call
from grader import CallStarted, CancelToken
from grader.problems import Problem
from grader.report import CheckResult, Report, summarise
from tests.app.app_support import (
    CORRECT,
    VERDICT_TIMEOUT_S,
    HeldGrader,
    TestClient,
    held_backend,
    parse_sse,
    run,
    submit,
    wait_for_verdict,
)
from tests.app.conftest import Server

LOOPING = "import torch\n\n\ndef add_one(x):\n    while True:\n        x = x + 0\n"


def stop(client: TestClient, submission_id: str) -> Any:
    return client.post(f"/api/submissions/{submission_id}/stop")


class StoppableGrader:
    """A stand-in for grader.grade that runs until its CancelToken is set, then reports like the judge: the first
    check passed before the stop, the others were stopped. Proves the runner hands every grading its token."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.calls: list[str] = []

    def __call__(self, problem: Problem, code: str, *, pool: Any, on_check: Any = None,
                 cancel: CancelToken | None = None, **_: Any) -> Report:
        self.calls.append(code)
        self.started.set()
        assert cancel is not None, "the runner must give every grading a CancelToken"
        end = time.monotonic() + VERDICT_TIMEOUT_S
        while not cancel.cancelled:
            assert time.monotonic() < end, "StoppableGrader was never stopped"
            time.sleep(0.01)
        checks = [CheckResult(id=check.id, title=check.title, group=check.group, required=check.required,
                              status="passed" if index == 0 else "skipped",
                              message="" if index == 0 else "not run: stopped by you")
                  for index, check in enumerate(problem.checks)]
        return summarise(problem=problem.slug, checks=checks, experiment=None, limits={}, sandbox="none",
                         duration_ms=1.0, stopped=True)


@pytest.fixture
def stoppable(make_server: Callable[..., Server]) -> tuple[Server, StoppableGrader]:
    grader = StoppableGrader()
    return make_server(backend_factory=held_backend(grader)), grader


# ------------------------------------------------------------------------------------------ who, and when


def test_the_owner_stops_a_running_grading_and_the_report_says_so(stoppable: tuple[Server, StoppableGrader]) -> None:
    server, grader = stoppable
    submission_id = submit(server.client, CORRECT).json()["id"]
    assert grader.started.wait(10)
    response = stop(server.client, submission_id)
    assert response.status_code == 202, response.text
    assert response.json()["id"] == submission_id
    verdict = wait_for_verdict(server.client, submission_id)
    assert verdict["status"] == "done" and verdict["report"]["stopped"] is True
    assert [check["status"] for check in verdict["report"]["checks"]] == ["passed", "skipped", "skipped"]


def test_the_submission_page_says_it_was_stopped_by_you(stoppable: tuple[Server, StoppableGrader]) -> None:
    server, grader = stoppable
    submission_id = submit(server.client, CORRECT).json()["id"]
    assert grader.started.wait(10)
    stop(server.client, submission_id)
    wait_for_verdict(server.client, submission_id)
    page = server.client.get(f"/submissions/{submission_id}")
    assert page.status_code == 200
    assert "<strong>Stopped by you.</strong> 1 / 3 checks passed before the stop." in page.text


def test_another_learner_cannot_stop_it(stoppable: tuple[Server, StoppableGrader]) -> None:
    server, grader = stoppable
    submission_id = submit(server.client, CORRECT).json()["id"]
    assert grader.started.wait(10)
    assert stop(server.learner(), submission_id).status_code == 404
    assert server.client.get(f"/api/submissions/{submission_id}").json()["status"] == "running"
    assert stop(server.client, submission_id).status_code == 202  # the owner still can


def test_an_unknown_submission_is_404(client: TestClient) -> None:
    response = stop(client, "no-such-submission")
    assert response.status_code == 404 and "no-such-submission" in response.json()["detail"]


def test_a_graded_submission_is_409_and_keeps_its_verdict(client: TestClient) -> None:
    verdict = run(client, CORRECT)
    response = stop(client, verdict["id"])
    assert response.status_code == 409 and "already graded" in response.json()["detail"]
    assert client.get(f"/api/submissions/{verdict['id']}").json() == verdict


def test_a_waiting_submission_is_stopped_at_once_and_never_graded(make_server: Callable[..., Server]) -> None:
    grader = HeldGrader()
    server = make_server(backend_factory=held_backend(grader), grading_concurrency=1)
    first = submit(server.client, CORRECT).json()["id"]
    assert grader.started.wait(10)
    waiting_learner = server.learner()
    waiting = submit(waiting_learner, "# mine\n" + CORRECT).json()["id"]
    assert waiting_learner.get(f"/api/submissions/{waiting}").json()["status"] == "queued"
    assert stop(waiting_learner, waiting).status_code == 202
    verdict = waiting_learner.get(f"/api/submissions/{waiting}").json()  # stored before the answer
    assert verdict["status"] == "done" and verdict["report"]["stopped"] is True and not verdict["report"]["solved"]
    assert {check["message"] for check in verdict["report"]["checks"]} == {"not run: stopped by you"}
    grader.release.set()
    wait_for_verdict(server.client, first)
    server.app.state.paperlab.backend.wait_idle()
    assert grader.calls == [CORRECT], "the stopped submission must not be graded after all"


# ------------------------------------------------------------------------------ the real judge, end to end


def test_the_stream_names_a_long_call_then_ends_with_the_stopped_report(make_server: Callable[..., Server]) -> None:
    server = make_server(slow_call_s=0.3)
    submission_id = submit(server.client, LOOPING).json()["id"]
    seen: list[tuple[str, Any]] = []
    stopped_at = 0.0
    with server.client.stream("GET", f"/api/submissions/{submission_id}/events") as response:
        for kind, data in parse_sse(response.iter_lines()):
            seen.append((kind, data))
            if kind == "call" and data["function"] == "add_one" and not stopped_at:
                stopped_at = time.monotonic()
                assert stop(server.client, submission_id).status_code == 202
    seconds = time.monotonic() - stopped_at
    calls = [data for kind, data in seen if kind == "call"]
    assert calls[0]["function"] == "add_one" and calls[0]["running_s"] >= 0.3, calls
    assert seen[-1][0] == "report", seen
    report = seen[-1][1]["report"]
    assert report["stopped"] is True and report["solved"] is False and report["status"] == "failed"
    first = report["checks"][0]
    assert first["status"] == "skipped" and first["message"].startswith("stopped by you during add_one("), first
    assert seconds < 4.0, f"the stop took {seconds:.1f} s; add_one's call limit is 5 s"
    assert run(server.client, CORRECT)["report"]["solved"] is True  # the pool grades the next run as usual


# ------------------------------------------------------------------------------------------- the pieces


@pytest.mark.parametrize(("data", "now", "expected"), [
    ({"function": "add_one", "started_at": 100.0}, 106.04, {"function": "add_one", "running_s": 6.0}),
    ({"function": "", "started_at": 100.0}, 102.5, {"function": "", "running_s": 2.5}),
    ({"function": "add_one", "started_at": 110.0}, 100.0, {"function": "add_one", "running_s": 0.0}),  # clock skew
    ({"function": None}, 100.0, {"function": None}),
    ({}, 100.0, {"function": None}),
])
def test_a_call_event_says_how_long_the_call_has_run_when_it_is_sent(
    data: dict[str, Any], now: float, expected: dict[str, Any]
) -> None:
    assert running_call(data, now=now) == expected


def watched(slow_after_s: float) -> tuple[CallWatch, list[dict[str, Any]]]:
    published: list[dict[str, Any]] = []
    return CallWatch(published.append, slow_after_s=slow_after_s), published


def wait_for(published: list[dict[str, Any]], count: int) -> None:
    end = time.monotonic() + 5
    while len(published) < count:
        assert time.monotonic() < end, published
        time.sleep(0.01)


def test_a_call_that_runs_long_is_announced_and_then_said_to_be_over() -> None:
    watch, published = watched(0.05)
    with watch:
        call = CallStarted("add_one")
        watch.on_call(call)
        wait_for(published, 1)
        assert published == [{"function": "add_one", "started_at": call.started_at}]
        watch.on_call(None)
        wait_for(published, 2)
    assert published[1:] == [{"function": None}]


def test_fast_calls_are_not_announced() -> None:
    watch, published = watched(0.5)
    with watch:
        for _ in range(20):
            watch.on_call(CallStarted("add_one"))
            watch.on_call(None)
        time.sleep(0.6)
    assert published == []


def test_fast_calls_never_wake_the_watcher() -> None:
    """A grading sends its worker about fifty requests: a wake-up of the watch thread for each cost the host more
    than the calls' own bookkeeping."""
    watch, published = watched(0.5)
    notified: list[int] = []

    class Counting(threading.Condition):
        def notify(self, n: int = 1) -> None:
            notified.append(n)
            super().notify(n)

    watch._changed = Counting()
    with watch:
        for _ in range(20):
            watch.on_call(CallStarted("add_one"))
            watch.on_call(None)
        assert notified == []
    assert published == []


def test_a_call_that_starts_while_the_watcher_sleeps_is_named_once_it_is_slow_and_not_before() -> None:
    watch, published = watched(0.3)
    with watch:
        time.sleep(0.2)  # the watcher, having seen no call, sleeps until 0.3 s
        call = CallStarted("add_one")
        watch.on_call(call)
        wait_for(published, 1)
        named_after = time.time() - call.started_at
    assert published[0] == {"function": "add_one", "started_at": call.started_at}
    assert named_after >= 0.3


def test_a_grading_that_ends_during_an_announced_call_says_it_is_over() -> None:
    watch, published = watched(0.01)
    with watch:
        watch.on_call(CallStarted("add_one"))
        wait_for(published, 1)
    assert published[-1] == {"function": None}


def test_a_stop_that_comes_before_its_grading_stops_it_as_it_starts() -> None:
    registry = StopRegistry()
    assert registry.stop("s1") is False
    with registry.watch("s1") as token, registry.watch("s2") as other:
        assert token.cancelled and not other.cancelled
        assert registry.stop("s2") is True and other.cancelled


def test_an_old_early_stop_is_forgotten() -> None:
    registry = StopRegistry(pending_s=0.0)
    registry.stop("s1")
    time.sleep(0.01)
    with registry.watch("s1") as token:
        assert not token.cancelled
