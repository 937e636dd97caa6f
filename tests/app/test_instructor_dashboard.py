"""What learners get wrong, over HTTP on SQLite: the stats API and the dashboard pages, after real gradings."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.app.app_support import CORRECT, PROBLEMS, WRONG, run
from tests.app.conftest import Server
from tests.app.instructor_support import csrf_from, make_instructor, sign_in

# A known mistake beside the fixture problem, so that WRONG (x + 2) gets a diagnosis.
MUTANT = "# MUTANT: adds two instead of one.\nimport torch\n\n\ndef add_one(x):\n    return x + 2\n"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    problems = tmp_path_factory.mktemp("problems")
    shutil.copytree(PROBLEMS / "add_one", problems / "add_one")
    checks = problems / "add_one" / "checks.py"
    # A check that keeps the call, so the judge can compare the learner's value with the mutant's.
    checks.write_text(checks.read_text().replace(
        "expect_close(sub.add_one(torch.tensor([1.0, 2.0])), torch.tensor([2.0, 3.0]))",
        "result = sub.add_one.call(torch.tensor([1.0, 2.0]))\n"
        "    expect_close(result.value, torch.tensor([2.0, 3.0]), call=result)",
    ))
    assert "call=result" in checks.read_text()
    (problems / "add_one" / "mutants").mkdir()
    (problems / "add_one" / "mutants" / "adds_two.py").write_text(MUTANT)
    return problems


@pytest.fixture
def site(make_server: Callable[..., Server], graded: Path) -> Server:
    """Three learners: one solves at the third attempt, one never, one at once."""
    server = make_server(problems_dir=graded)
    make_instructor(server.app)
    ada, bob, cy = server.learner(), server.learner(), server.learner()
    for client, code in [(ada, WRONG), (ada, WRONG), (ada, CORRECT), (bob, WRONG), (cy, CORRECT)]:
        assert run(client, code)["status"] == "done"
    ada.post("/me/profile", data={"display_name": "Ada L.", "student_id": "s-0042",
                                  "next": "/problems/add_one/history"})
    return server


@pytest.fixture
def instructor(site: Server) -> Any:
    client = site.learner()
    sign_in(client)
    return client


def test_stats_count_learners_attempts_and_solvers(instructor: Any) -> None:
    stats = instructor.get("/api/instructor/problems/add_one/stats").json()
    assert (stats["learners_tried"], stats["learners_solved"], stats["attempts"]) == (3, 2, 5)
    assert stats["median_attempts_to_solve"] == 2.0  # 3 for one solver, 1 for the other
    assert stats["median_seconds_to_solve"] >= 0


def test_checks_come_worst_first_with_shares_of_attempts_and_of_learners(instructor: Any) -> None:
    checks = instructor.get("/api/instructor/problems/add_one/stats").json()["checks"]
    worst = checks[0]
    assert worst["check_id"] == "add_one.hand_example"
    assert (worst["failed_attempts"], worst["attempts"], worst["attempt_failure_share"]) == (3, 5, 0.6)
    assert (worst["learners_failed"], worst["learners"]) == (2, 3)
    shares = [check["attempt_failure_share"] for check in checks]
    assert shares == sorted(shares, reverse=True)
    unchanged = next(c for c in checks if c["check_id"] == "add_one.inputs_unchanged")
    assert unchanged["failed_attempts"] == 0


def test_the_first_failing_check_distribution(instructor: Any) -> None:
    first = instructor.get("/api/instructor/problems/add_one/stats").json()["first_failing"]
    assert {row["check_id"]: row["attempts"] for row in first} == {"add_one.hand_example": 3, None: 2}


def test_known_mistakes_are_counted_by_learner(instructor: Any) -> None:
    diagnoses = instructor.get("/api/instructor/problems/add_one/stats").json()["diagnoses"]
    assert [(row["check_id"], row["times"], row["learners"]) for row in diagnoses] == [
        ("add_one.hand_example", 3, 2)  # three WRONG attempts by two learners
    ]
    assert "adds two instead of one" in diagnoses[0]["diagnosis"]


def test_unknown_problem_is_404(instructor: Any) -> None:
    assert instructor.get("/api/instructor/problems/nope/stats").status_code == 404


def test_the_problem_page_shows_each_chart_with_its_table(instructor: Any) -> None:
    page = instructor.get("/instructor/problems/add_one").text
    for chart in ("checks", "first", "diagnoses"):
        assert f'data-chart="{chart}"' in page
    assert 'id="check-table"' in page and "60.0%" in page and "adds two instead of one" in page


def test_the_dashboard_lists_every_problem(instructor: Any) -> None:
    overview = instructor.get("/api/instructor/problems").json()
    assert overview[0]["problem"] == "add_one" and overview[0]["learners_solved"] == 2
    assert "/instructor/problems/add_one" in instructor.get("/instructor").text


def test_learners_show_their_chosen_name_and_open_the_learners_own_submission_page(instructor: Any) -> None:
    learners = instructor.get("/api/instructor/learners").json()
    ada = next(row for row in learners if row["display_name"] == "Ada L.")
    assert (ada["student_id"], ada["attempts"], ada["problems_solved"]) == ("s-0042", 3, 1)
    page = instructor.get(f"/instructor/learners/{ada['learner_id']}").text
    assert page.count("/instructor/submissions/") == 3
    submission_id = page.split("/instructor/submissions/")[1].split('"')[0]
    submission = instructor.get(f"/instructor/submissions/{submission_id}")
    assert submission.status_code == 200 and "def add_one" in submission.text


def test_a_learner_sets_and_clears_a_display_name_on_the_attempts_page(site: Server) -> None:
    learner = site.learner()
    run(learner, WRONG)
    page = learner.get("/problems/add_one/history").text
    assert 'action="/me/profile"' in page
    saved = learner.post("/me/profile", data={"display_name": "  Grace  ", "student_id": "",
                                               "next": "/problems/add_one/history"}, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"] == "/problems/add_one/history"
    assert 'value="Grace"' in learner.get("/problems/add_one/history").text
    learner.post("/me/profile", data={"display_name": "", "student_id": ""})
    assert 'value="Grace"' not in learner.get("/problems/add_one/history").text


def test_a_display_name_over_80_characters_is_refused(site: Server) -> None:
    response = site.learner().post("/me/profile", data={"display_name": "x" * 81})
    assert response.status_code == 422


def test_sign_out_from_the_dashboard(instructor: Any) -> None:
    name, token = csrf_from(instructor.get("/instructor").text)
    instructor.post("/instructor/logout", data={name: token})
    assert instructor.get("/api/instructor/problems").status_code == 401
