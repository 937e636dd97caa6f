"""Regrading after a problem changed: the button and `python -m app regrade` grade each learner's latest stale
attempt again through the grading path, keep the old report, show the change, and never lock notes."""

from __future__ import annotations

import html
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.sandbox import probe
from tests.app.app_support import CORRECT, PROBLEMS, WRONG, TestClient, run
from tests.app.conftest import Server
from tests.app.instructor_support import csrf_from, make_instructor, sign_in

REPO_ROOT = Path(__file__).resolve().parents[2]
# The change an author makes: hand_example now expects x + 2, so WRONG passes it and CORRECT fails it.
OLD_EXPECTATION = "torch.tensor([2.0, 3.0]))"
NEW_EXPECTATION = "torch.tensor([3.0, 4.0]))"


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    folder = tmp_path / "problems"
    shutil.copytree(PROBLEMS / "add_one", folder / "add_one")
    return folder


def change_the_battery(problems: Path) -> None:
    checks = problems / "add_one" / "checks.py"
    assert OLD_EXPECTATION in checks.read_text()
    checks.write_text(checks.read_text().replace(OLD_EXPECTATION, NEW_EXPECTATION))


@pytest.fixture
def graded(make_server: Callable[..., Server], problems: Path) -> dict[str, Any]:
    """Ada's latest attempt is WRONG (1/3), Bob solved (3/3); then the checks change and the server restarts
    (a second app on the same database loads the changed folder)."""
    before = make_server(problems_dir=problems)
    make_instructor(before.app)
    ada, bob = before.learner(), before.learner()
    ada_attempt = run(ada, WRONG)
    bob_attempt = run(bob, CORRECT)
    assert bob.get("/problems/add_one/notes").status_code == 200
    change_the_battery(problems)
    after = make_server(problems_dir=problems)
    # The same browsers (their learner cookies), now talking to the restarted server.
    ada, bob = TestClient(after.app, cookies=ada.cookies), TestClient(after.app, cookies=bob.cookies)
    return {"server": after, "ada": (ada, ada_attempt["id"]), "bob": (bob, bob_attempt["id"])}


def press_regrade(server: Server) -> TestClient:
    instructor = server.learner()
    sign_in(instructor)
    name, token = csrf_from(instructor.get("/instructor").text)
    response = instructor.post("/instructor/regrade", data={name: token}, follow_redirects=False)
    assert response.status_code == 303
    deadline = time.monotonic() + 60
    while (state := instructor.get("/api/instructor/regrades").json())["pending"] + state["queued"]:
        assert time.monotonic() < deadline, state
        time.sleep(0.05)
    return instructor


def test_the_button_regrades_and_the_learner_sees_the_change(graded: dict[str, Any]) -> None:
    press_regrade(graded["server"])
    ada, attempt = graded["ada"]
    page = ada.get(f"/submissions/{attempt}").text
    assert "Re-graded after the problem changed: 1/3 -> 2/3." in page


def test_the_old_report_is_kept(graded: dict[str, Any]) -> None:
    press_regrade(graded["server"])
    ada, attempt = graded["ada"]
    original = ada.get(f"/api/submissions/{attempt}").json()
    assert [c["status"] for c in original["report"]["checks"]] == ["failed", "passed", "failed"]


def test_a_regrade_that_fails_never_locks_the_notes(graded: dict[str, Any]) -> None:
    press_regrade(graded["server"])
    bob, attempt = graded["bob"]
    page = bob.get(f"/submissions/{attempt}").text
    assert "Re-graded after the problem changed: 3/3 -> 2/3." in page
    assert "Your notes stay unlocked" in page
    assert bob.get("/problems/add_one/notes").status_code == 200


def test_regrading_twice_grades_nothing_twice(graded: dict[str, Any]) -> None:
    instructor = press_regrade(graded["server"])
    assert instructor.get("/api/instructor/regrades").json() == {"pending": 0, "queued": 0, "done": 2}
    press_regrade(graded["server"])
    assert instructor.get("/api/instructor/regrades").json() == {"pending": 0, "queued": 0, "done": 2}


def test_regrades_are_not_counted_as_attempts(graded: dict[str, Any]) -> None:
    instructor = press_regrade(graded["server"])
    stats = instructor.get("/api/instructor/problems/add_one/stats").json()
    assert (stats["attempts"], stats["learners_tried"], stats["learners_solved"]) == (2, 2, 1)


def test_the_dashboard_shows_the_battery_and_the_progress(graded: dict[str, Any]) -> None:
    instructor = press_regrade(graded["server"])
    page = instructor.get("/instructor").text
    assert "2 done · 0 being graded · 0 waiting" in page
    battery = instructor.get("/instructor").text.split('content hash of problem.toml')[1].split("</code>")[0]
    assert len(battery.split(">")[-1]) == 16


def test_the_regrade_form_needs_its_csrf_token(graded: dict[str, Any]) -> None:
    instructor = graded["server"].learner()
    sign_in(instructor)
    assert instructor.post("/instructor/regrade", data={"csrf_token": "x"}).status_code == 403


def test_the_cli_regrades_through_the_same_runner(make_server: Callable[..., Server], problems: Path,
                                                  tmp_path: Path) -> None:
    server = make_server(problems_dir=problems)
    ada = server.learner()
    attempt = run(ada, WRONG)["id"]
    change_the_battery(problems)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PAPERLAB_")}
    env |= {"DATABASE_URL": f"sqlite:///{tmp_path / 'paperlab.db'}", "PAPERLAB_VAR_DIR": str(tmp_path / "var"),
            "PAPERLAB_PROBLEMS_DIR": str(problems), "PYTHONPATH": str(REPO_ROOT)}
    if not probe().available:
        env["PAPERLAB_UNSAFE_NO_SANDBOX"] = "1"
    first = subprocess.run([sys.executable, "-m", "app", "regrade", "add_one"], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=180, check=False)
    assert first.returncode == 0, first.stderr
    assert "planned 1 regrade(s)" in first.stdout and "1 done, 0 queued, 0 pending" in first.stdout
    again = subprocess.run([sys.executable, "-m", "app", "regrade"], env=env, cwd=tmp_path, capture_output=True,
                           text=True, timeout=180, check=False)
    assert "planned 0 regrade(s)" in again.stdout
    assert "Re-graded after the problem changed: 1/3 -> 2/3." in ada.get(f"/submissions/{attempt}").text


def test_regrades_wait_while_a_learners_submission_waits(graded: dict[str, Any]) -> None:
    from app.instructor.regrade import feed_one, plan_regrades, progress

    state = graded["server"].app.state.paperlab
    with state.session_factory() as session:
        assert plan_regrades(session=session, problems=state.catalog) == 2
    submitted: list[str] = []
    fed = feed_one(session_factory=state.session_factory, submit=lambda sid, who: submitted.append(sid),
                   learners_waiting=lambda: 1)
    assert not fed and not submitted
    with state.session_factory() as session:
        assert progress(session=session).pending == 2


def test_the_learners_history_labels_a_regrading_as_the_instructors(graded: dict[str, Any]) -> None:
    press_regrade(graded["server"])
    ada, attempt = graded["ada"]
    page = ada.get("/problems/add_one/history").text
    assert page.count("Re-graded by your instructor") == 1  # the copy only; her own attempt is hers
    assert 'your attempt from <time datetime=' in page and f'href="/submissions/{attempt}"' in page
    copy = ada.get("/api/problems/add_one/submissions").json()[0]["id"]
    assert "A re-grading by your instructor" in ada.get(f"/submissions/{copy}").text


def test_a_regrading_that_still_solves_does_not_say_it_now_solves(make_server: Callable[..., Server],
                                                                   problems: Path) -> None:
    before = make_server(problems_dir=problems)
    make_instructor(before.app)
    bob = before.learner()
    attempt = run(bob, CORRECT)["id"]
    checks = problems / "add_one" / "checks.py"
    checks.write_text(checks.read_text() + "\n# A comment: a new battery that grades the same.\n")
    after = make_server(problems_dir=problems)
    bob = TestClient(after.app, cookies=bob.cookies)
    press_regrade(after)
    page = bob.get(f"/submissions/{attempt}").text
    assert "Re-graded after the problem changed: 3/3 -> 3/3." in page
    assert "It still solves the problem." in page and "It now solves" not in page


def test_pressing_regrade_with_nothing_stale_says_so(make_server: Callable[..., Server], problems: Path) -> None:
    server = make_server(problems_dir=problems)
    make_instructor(server.app)
    run(server.learner(), WRONG)  # graded by the battery the server has: nothing is stale
    instructor = server.learner()
    sign_in(instructor)
    name, token = csrf_from(instructor.get("/instructor").text)
    response = instructor.post("/instructor/regrade", data={name: token})
    assert response.status_code == 200 and response.url.path == "/instructor"
    said = html.unescape(response.text)
    assert "Nothing to regrade: every learner's latest attempt was graded by each problem as it is now." in said
