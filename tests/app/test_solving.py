"""End to end through the HTTP API with the real grader and a real SQLite file: solving unlocks the notes."""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Callable
from typing import Any

from grader.problems import Problem
from grader.report import CheckResult, Experiment, Report, summarise
from tests.app.app_support import (
    CHECK_IDS,
    CORRECT,
    NOTES_SENTINEL,
    VERDICT_TIMEOUT_S,
    WRONG,
    TestClient,
    held_backend,
    run,
    submit,
    wait_for_verdict,
)
from tests.app.conftest import Server


def test_a_correct_solution_solves_and_unlocks_the_notes(client: TestClient) -> None:
    locked = client.get("/problems/add_one/notes")
    assert locked.status_code == 403
    assert NOTES_SENTINEL not in locked.text
    assert "locked" in locked.text.lower()

    response = submit(client, CORRECT)
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued" and set(body) == {"id", "status"}
    assert response.headers["location"] == f"/api/submissions/{body['id']}"

    verdict = wait_for_verdict(client, body["id"])
    assert verdict["status"] == "done"
    assert verdict["problem"] == "add_one" and verdict["code"] == CORRECT
    report = verdict["report"]
    assert report["solved"] is True and report["status"] == "passed"
    assert [check["id"] for check in report["checks"]] == CHECK_IDS
    assert report["experiment"]["series"]["loss"] == [1.0, 2.0, 3.0]

    notes = client.get("/problems/add_one/notes")
    assert notes.status_code == 200
    assert NOTES_SENTINEL in notes.text
    assert 'data-series="loss"' in notes.text
    assert '"loss": [1.0, 2.0, 3.0]' in notes.text  # the learner's own experiment, for the charts

    index = client.get("/")
    assert "problem-card--solved" in index.text
    page = client.get("/problems/add_one")
    assert 'id="notes-link"' in page.text and f'data-last-submission="{body["id"]}"' in page.text


def test_a_wrong_solution_does_not_solve(client: TestClient) -> None:
    verdict = run(client, WRONG)
    assert verdict["status"] == "done"
    assert verdict["report"]["solved"] is False and verdict["report"]["status"] == "failed"
    failed = [c for c in verdict["report"]["checks"] if c["status"] == "failed"]
    assert failed and "expected" in failed[0]["message"]
    assert client.get("/problems/add_one/notes").status_code == 403
    assert "problem-card--attempted" in client.get("/").text


def test_the_starter_does_not_solve_and_the_page_opens_with_the_last_code(client: TestClient) -> None:
    page = client.get("/problems/add_one")
    assert page.status_code == 200
    assert "raise NotImplementedError" in page.text  # the starter, before any run
    assert "problem-card--new" in client.get("/").text
    run(client, WRONG)
    assert "return x + 2" in client.get("/problems/add_one").text


def test_another_learner_cannot_read_your_submission_or_notes(server: Server) -> None:
    owner, other = server.client, server.learner()
    submission_id = run(owner, CORRECT)["id"]
    assert owner.get("/problems/add_one/notes").status_code == 200

    assert other.get(f"/api/submissions/{submission_id}").status_code == 404
    assert other.get(f"/api/submissions/{submission_id}/events").status_code == 404
    assert other.get(f"/submissions/{submission_id}").status_code == 404
    assert other.get("/api/problems/add_one/submissions").json() == []
    notes = other.get("/problems/add_one/notes")
    assert notes.status_code == 403 and NOTES_SENTINEL not in notes.text


def test_history_lists_this_learners_attempts_newest_first(server: Server) -> None:
    client = server.client
    first = run(client, WRONG)
    second = run(client, CORRECT)
    attempts = client.get("/api/problems/add_one/submissions").json()
    assert [a["id"] for a in attempts] == [second["id"], first["id"]]
    assert attempts[0] | {"created_at": None} == {
        "id": second["id"], "created_at": None, "status": "done", "passed": 3, "total": 3, "solved": True,
    }
    assert attempts[1]["solved"] is False and attempts[1]["passed"] == 1  # only "inputs unchanged"
    history = client.get("/problems/add_one/history")
    assert history.status_code == 200 and f"/submissions/{first['id']}" in history.text
    page = client.get(f"/submissions/{first['id']}")
    # The code is highlighted (a span per token): read it as the page shows it.
    shown = html.unescape(re.sub(r"<[^>]+>", "", page.text))
    assert page.status_code == 200 and "return x + 2" in shown


class SolvesThenHolds:
    """Stands in for grader.grade: every required check passes and the verdict is told, then the grading waits,
    as it would while a paper-scale advisory experiment runs, until released."""

    def __init__(self) -> None:
        self.told, self.release = threading.Event(), threading.Event()

    def __call__(self, problem: Problem, code: str, *, pool: Any, on_check: Any = None, on_verdict: Any = None,
                 **_: Any) -> Report:
        checks = [CheckResult(id=c.id, title=c.title, group=c.group, required=c.required, status="passed")
                  for c in problem.checks]
        for check in checks:
            if check.required:
                on_check(check)
        on_verdict(True)
        self.told.set()
        assert self.release.wait(VERDICT_TIMEOUT_S), "SolvesThenHolds was never released"
        for check in checks:
            if not check.required:
                on_check(check)
        return summarise(problem=problem.slug, checks=checks, sandbox="none", duration_ms=1.0, limits={},
                         experiment=Experiment(steps=[1, 2], series={"loss": [4.0, 5.0]}))


def test_the_notes_unlock_when_the_required_checks_pass_before_the_advisory_ones_end(
    make_server: Callable[..., Server]
) -> None:
    grader = SolvesThenHolds()
    server = make_server(backend_factory=held_backend(grader))
    client = server.client
    submission_id = submit(client, CORRECT).json()["id"]
    assert grader.told.wait(VERDICT_TIMEOUT_S)
    assert client.get(f"/api/submissions/{submission_id}").json()["status"] == "running"
    notes = client.get("/problems/add_one/notes")
    assert notes.status_code == 200 and NOTES_SENTINEL in notes.text
    assert "Your experiment is still running" in notes.text
    grader.release.set()
    assert wait_for_verdict(client, submission_id)["report"]["solved"] is True
    notes = client.get("/problems/add_one/notes")
    assert "still running" not in notes.text and '"loss": [4.0, 5.0]' in notes.text
