"""Export (CSV and JSON, streamed, filtered by problem) and learners' reports of checks with the instructor's
reply, over HTTP."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.app.app_support import CORRECT, WRONG, run
from tests.app.conftest import Server
from tests.app.instructor_support import csrf_from, make_instructor, sign_in


@pytest.fixture
def site(make_server: Callable[..., Server]) -> dict[str, Any]:
    server = make_server()
    make_instructor(server.app)
    ada, bob = server.learner(), server.learner()
    run(ada, WRONG)
    solved = run(ada, CORRECT)
    failed = run(bob, WRONG)
    ada.post("/me/profile", data={"display_name": "Zoë Ångström", "student_id": "s-1"})
    instructor = server.learner()
    sign_in(instructor)
    return {"server": server, "ada": ada, "bob": bob, "instructor": instructor, "bob_attempt": failed["id"],
            "ada_solved": solved["id"]}


def test_the_csv_has_a_bom_a_header_and_one_row_per_learner_and_problem(site: dict[str, Any]) -> None:
    response = site["instructor"].get("/api/instructor/export.csv")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert 'filename="paperlab-all.csv"' in response.headers["content-disposition"]
    assert response.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert len(rows) == 2
    ada = next(row for row in rows if row["display_name"] == "Zoë Ångström")
    assert (ada["student_id"], ada["attempts"], ada["last_verdict"], ada["checks_passed"], ada["checks_total"]) == (
        "s-1", "2", "solved", "3", "3")
    # ISO 8601 in UTC to the second: no microseconds, no "+00:00" a spreadsheet reads as part of the value
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", ada["first_solved_at"]), ada["first_solved_at"]
    assert ada["solved_after_reveal"] == "false"  # the documented form, not Python's "False"
    bob = next(row for row in rows if row["display_name"] == "")
    assert (bob["last_verdict"], bob["first_solved_at"], bob["checks_passed"]) == ("not solved", "", "1")


def test_the_json_export_has_the_same_rows_and_filters_by_problem(site: dict[str, Any]) -> None:
    rows = site["instructor"].get("/api/instructor/export.json?problem=add_one").json()
    assert sorted(row["attempts"] for row in rows) == [1, 2]
    assert site["instructor"].get("/api/instructor/export.json?problem=nope").status_code == 404


def test_a_learner_reports_a_failed_check_and_sees_the_reply(site: dict[str, Any]) -> None:
    bob, attempt = site["bob"], site["bob_attempt"]
    created = bob.post(f"/api/submissions/{attempt}/check-reports",
                       json={"check_id": "add_one.hand_example", "text": "The hint talks about x + 1?"})
    assert created.status_code == 201 and created.json()["status"] == "open"
    inbox = site["instructor"].get("/api/instructor/reports").json()
    assert [(r["check_id"], r["failed_attempts"], r["attempts"]) for r in inbox] == [("add_one.hand_example", 2, 3)]
    page = site["instructor"].get("/instructor/reports").text
    name, token = csrf_from(page)
    site["instructor"].post(f"/instructor/reports/{inbox[0]['id']}/resolve",
                            data={name: token, "reply": "It means one is added to every element."})
    assert site["instructor"].get("/api/instructor/reports").json() == []
    mine = bob.get(f"/api/submissions/{attempt}/check-reports").json()
    assert mine[0]["status"] == "resolved" and mine[0]["reply"] == "It means one is added to every element."
    assert "It means one is added to every element." in bob.get(f"/submissions/{attempt}").text


@pytest.mark.parametrize(
    "who, check_id, text, status",
    [
        pytest.param("bob", "add_one.inputs_unchanged", "?", 422, id="a-check-that-passed"),
        pytest.param("bob", "add_one.hand_example", "", 422, id="empty-text"),
        pytest.param("bob", "add_one.hand_example", "x" * 1001, 422, id="too-long"),
        pytest.param("ada", "add_one.hand_example", "not mine", 404, id="someone-elses-attempt"),
    ],
)
def test_reports_that_are_refused(site: dict[str, Any], who: str, check_id: str, text: str, status: int) -> None:
    response = site[who].post(f"/api/submissions/{site['bob_attempt']}/check-reports",
                              json={"check_id": check_id, "text": text})
    assert response.status_code == status


def test_a_check_is_reported_once_per_attempt(site: dict[str, Any]) -> None:
    url = f"/api/submissions/{site['bob_attempt']}/check-reports"
    body = {"check_id": "add_one.hand_example", "text": "unclear"}
    assert site["bob"].post(url, json=body).status_code == 201
    assert site["bob"].post(url, json=body).status_code == 409


def test_resolving_needs_the_csrf_token(site: dict[str, Any]) -> None:
    site["bob"].post(f"/api/submissions/{site['bob_attempt']}/check-reports",
                     json={"check_id": "add_one.hand_example", "text": "unclear"})
    report_id = site["instructor"].get("/api/instructor/reports").json()[0]["id"]
    assert site["instructor"].post(f"/instructor/reports/{report_id}/resolve",
                                   data={"csrf_token": "x", "reply": "no"}).status_code == 403


def test_the_export_says_who_solved_after_revealing_the_solution(site: dict[str, Any]) -> None:
    carol = site["server"].learner()
    for _ in range(3):
        run(carol, WRONG)
    assert carol.post("/api/problems/add_one/solution/reveal").status_code == 200
    run(carol, CORRECT)
    rows = site["instructor"].get("/api/instructor/export.json?problem=add_one").json()
    after_reveal = sorted((row["attempts"], row["solved_after_reveal"]) for row in rows)
    assert after_reveal == [(1, ""), (2, False), (4, True)]  # bob unsolved, ada solved without, carol after
