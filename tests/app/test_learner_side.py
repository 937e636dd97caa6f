"""The learner's side over HTTP: replies to "Report this check" reach the learner (a badge on the home and problem
pages, a list of their reports that clears it), a stopped run is not a failed attempt, the Solution page shows
what the author meant learners to read, an attempt's page shows its code highlighted beside a diff against the
previous attempt, summaries carry their maths to KaTeX, /favicon.ico exists, and an instructor's page in a
learner's browser links to the sign-in form."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app.instructor.models import Regrade
from app.models import Learner, Submission
from app.progress import failed_attempts
from tests.app.app_support import CORRECT, PROBLEMS, WRONG, TestClient, run
from tests.app.conftest import Server
from tests.app.instructor_support import csrf_from, make_instructor, sign_in

REPLY = "Every element gets one added: x + 1."


@pytest.fixture
def reported(make_server: Callable[..., Server]) -> dict[str, Any]:
    """Bob failed add_one and reported a check; the instructor answered."""
    server = make_server()
    make_instructor(server.app)
    bob = server.learner()
    attempt = run(bob, WRONG)["id"]
    assert bob.post(f"/api/submissions/{attempt}/check-reports",
                    json={"check_id": "add_one.hand_example", "text": "What is expected?"}).status_code == 201
    instructor = server.learner()
    sign_in(instructor)
    report_id = instructor.get("/api/instructor/reports").json()[0]["id"]
    name, token = csrf_from(instructor.get("/instructor/reports").text)
    instructor.post(f"/instructor/reports/{report_id}/resolve", data={name: token, "reply": REPLY})
    return {"server": server, "bob": bob, "attempt": attempt}


def badge(page: str) -> str | None:
    match = re.search(r'id="replies-badge"><a href="/reports">(.*?)</a>', page, re.DOTALL)
    return re.sub(r"<[^>]+>", "", match.group(1)) if match else None


@pytest.mark.parametrize("path", ["/", "/problems/add_one"])
def test_an_answered_report_shows_a_badge_on_the_home_and_problem_pages(reported: dict[str, Any], path: str) -> None:
    assert badge(reported["bob"].get(path).text) == "1 new reply from your instructor to your report"


def test_the_list_of_reports_shows_each_state_and_reply_and_clears_the_badge(reported: dict[str, Any]) -> None:
    bob = reported["bob"]
    mine = bob.get("/api/check-reports").json()
    assert [(r["problem"], r["check_id"], r["status"], r["reply"], r["unseen_reply"]) for r in mine] == [
        ("add_one", "add_one.hand_example", "resolved", REPLY, True)]
    page = bob.get("/reports").text
    assert REPLY in page and "Answered" in page and "New reply" in page
    assert f'href="/submissions/{reported["attempt"]}"' in page
    assert badge(bob.get("/").text) is None
    assert bob.get("/api/check-reports").json()[0]["unseen_reply"] is False
    assert "New reply" not in bob.get("/reports").text


def test_reading_the_attempt_with_the_reply_clears_the_badge_too(reported: dict[str, Any]) -> None:
    bob = reported["bob"]
    assert REPLY in bob.get(f"/submissions/{reported['attempt']}").text
    assert badge(bob.get("/problems/add_one").text) is None


def test_another_learner_sees_no_badge_and_an_empty_list(reported: dict[str, Any]) -> None:
    stranger = reported["server"].learner()
    assert badge(stranger.get("/").text) is None
    assert stranger.get("/api/check-reports").json() == []
    assert "You have not reported any check" in stranger.get("/reports").text


# ------------------------------------------------------------------------- what counts as a failed attempt


def add_submission(session: Session, learner: str, *, solved: bool = False, stopped: bool = False,
                   status: str = "done") -> Submission:
    submission = Submission(learner_id=learner, problem="add_one", code="", status=status, solved=solved,
                            stopped=stopped)  # fmt: skip
    session.add(submission)
    session.flush()
    return submission


def test_a_stopped_run_and_a_regrading_are_not_failed_attempts(make_server: Callable[..., Server]) -> None:
    state = make_server().app.state.paperlab
    with state.session_factory() as session:
        session.add(Learner(id="ada"))
        tried = add_submission(session, "ada")
        add_submission(session, "ada", stopped=True)  # the Stop button: unlocks no hint, no solution
        copy = add_submission(session, "ada")  # an instructor's regrading of the first attempt
        session.add(Regrade(submission_id=tried.id, regrade_submission_id=copy.id, learner_id="ada",
                            problem="add_one", from_battery="a", to_battery="b", old_passed=1, old_total=3,
                            status="done"))  # fmt: skip
        add_submission(session, "ada", status="error")  # the grader broke: not the learner's failure
        session.commit()
        assert failed_attempts(session=session, learner_id="ada", problem="add_one") == 1


# ------------------------------------------------------------------------------- the Solution page's source


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    import shutil

    folder = tmp_path / "problems"
    shutil.copytree(PROBLEMS / "add_one", folder / "add_one")
    return folder


def test_the_solution_page_strips_private_comments_from_the_reference(make_server: Callable[..., Server],
                                                                      problems: Path) -> None:
    reference = problems / "add_one" / "reference.py"
    reference.write_text(reference.read_text() + "# private: the trick is to add one\nTRICK = 1  # private: shh\n")
    client = make_server(problems_dir=problems).client
    run(client, CORRECT)
    body = client.get("/api/problems/add_one/solution").json()
    assert body["file"] == "reference.py"
    assert "private" not in body["code"] and "TRICK = 1\n" in body["code"]
    assert "<h2 id=\"reference-heading\">reference.py</h2>" in client.get("/problems/add_one/solution").text


def test_the_solution_page_shows_solution_py_when_the_author_wrote_one(make_server: Callable[..., Server],
                                                                      problems: Path) -> None:
    (problems / "add_one" / "solution.py").write_text("# Written for learners.\n")
    client = make_server(problems_dir=problems).client
    run(client, CORRECT)
    body = client.get("/api/problems/add_one/solution").json()
    assert (body["file"], body["code"]) == ("solution.py", "# Written for learners.\n")


# ------------------------------------------------------------------------------------------ an attempt's page


def test_an_attempt_shows_its_code_highlighted_and_a_diff_against_the_previous_one(client: TestClient) -> None:
    first = run(client, WRONG)["id"]
    second = run(client, CORRECT)["id"]
    page = client.get(f"/submissions/{second}").text
    assert re.search(r'class="code-view code-block"[^>]*>\s*<div class="highlight">', page)
    assert f'href="/submissions/{first}"' in page and 'id="attempt-diff"' in page
    assert '<span class="gd">-' in page and '<span class="gi">+' in page  # removed and added lines, coloured
    assert 'href="/problems/add_one?restore=' + second + '"' in page
    assert 'id="attempt-diff"' not in client.get(f"/submissions/{first}").text  # the first has nothing before it


# ---------------------------------------------------------------------------------------- small things


def test_favicon_ico_is_served(client: TestClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"  # an ICO file's header


def test_an_instructors_page_in_a_learners_browser_links_to_the_sign_in_form(client: TestClient) -> None:
    client.get("/")  # now a learner's browser: it has the cookie
    response = client.get("/instructor/learners")
    assert response.status_code == 403
    assert 'href="/instructor/login?next=/instructor/learners"' in response.text
    assert "Sign in as an instructor" in response.text


def test_maths_in_a_summary_reaches_katex_and_the_rest_is_escaped(client: TestClient) -> None:
    from app.markdown import inline_math

    assert inline_math("$a<b$ costs $5 & <i>") == '<span class="math inline">a&lt;b</span> costs $5 &amp; &lt;i&gt;'


def test_the_migration_finds_the_stopped_runs_already_stored(tmp_path: Path) -> None:
    import json

    from alembic import command
    from sqlalchemy import text

    from app.db import make_engine
    from app.migrate import alembic_config, upgrade

    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    config = alembic_config()
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0003")
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO learners (id, created_at) VALUES ('l1', '2026-01-01')"))
            for name, report in [("stopped", {"stopped": True}), ("failed", {"stopped": False}), ("old", {}),
                                 ("lying", {"checks": [{"message": '"stopped": true'}]})]:
                connection.execute(text(
                    "INSERT INTO submissions (id, learner_id, problem, code, status, report, solved, attempts, "
                    "created_at) VALUES (:id, 'l1', 'moco', '', 'done', :report, 0, 0, '2026-01-01')"),
                    {"id": name, "report": json.dumps(report)})  # fmt: skip
        upgrade(engine)
        with engine.connect() as connection:
            rows: dict[str, object] = dict(connection.execute(text("SELECT id, stopped FROM submissions")).all())
        assert {name: bool(stopped) for name, stopped in rows.items()} == {
            "stopped": True, "failed": False, "old": False, "lying": False}
    finally:
        engine.dispose()
