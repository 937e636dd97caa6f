"""Courses over HTTP on SQLite, with real gradings: an instructor makes a course and assignments, imports a
roster, learners join with the code; deadlines, late policies, extensions and overrides decide the gradebook, the
audit log records every change, and the exports follow the gradebook."""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.app.app_support import CORRECT, WRONG, TestClient, run
from tests.app.conftest import Server
from tests.app.course_support import Teacher, cell, join, local, two_problems

NOW = datetime.now(UTC)


def said(response: Any) -> str:
    """The page's text with its HTML escapes undone (a quote is &#39; in the page)."""
    return html.unescape(response.text)


@pytest.fixture
def site(make_server: Callable[..., Server], tmp_path: Path) -> Server:
    return make_server(problems_dir=two_problems(tmp_path / "problems"))


@pytest.fixture
def teacher(site: Server) -> Teacher:
    return Teacher(site.app)


@pytest.fixture
def course(teacher: Teacher) -> str:
    return teacher.create_course()


# --- courses, codes and rosters -------------------------------------------------------------------------------


def test_a_new_course_has_a_join_code_and_its_creator_as_instructor(teacher: Teacher, course: str) -> None:
    code = teacher.join_code(course)
    assert len(code.replace("-", "")) == 8
    listed = teacher.client.get("/api/instructor/courses").json()
    assert [(c["id"], c["join_code"]) for c in listed] == [(course, code)]


def test_a_learner_joins_with_the_code_typed_loosely(site: Server, teacher: Teacher, course: str) -> None:
    learner = site.learner()
    response = join(learner, teacher.join_code(course).lower().replace("-", " "))
    assert response.status_code == 303 and response.headers["location"] == f"/courses/{course}"
    assert "Deep learning 101" in learner.get("/courses").text
    assert learner.get(f"/courses/{course}").status_code == 200


def test_an_unknown_join_code_says_so(site: Server) -> None:
    response = join(site.learner(), "NOPE-NOPE")
    assert response.status_code == 404
    assert "There is no course with the join code 'NOPE-NOPE'" in said(response)


def test_a_join_link_only_asks_and_the_post_joins(site: Server, teacher: Teacher, course: str) -> None:
    learner = site.learner()
    code = teacher.join_code(course)
    page = learner.get(f"/join/{code}")
    assert page.status_code == 200 and "Join Deep learning 101" in page.text
    assert learner.get(f"/courses/{course}").status_code == 404, "opening the link joined nobody"


def test_a_roster_import_lists_who_has_not_joined_and_a_joiner_claims_their_row(
        site: Server, teacher: Teacher, course: str) -> None:
    roster = "Name,Student ID,Email\nGrace Hopper,s-1,grace@uni.edu\nAlan Turing,s-2,alan@uni.edu\n"
    page = f"/instructor/courses/{course}"
    assert teacher.post(f"{page}/roster", page, roster=roster).status_code == 303
    assert join(site.learner(), teacher.join_code(course), name="G. Hopper", student_id="s-1").status_code == 303
    members = {m["student_id"]: m for m in teacher.client.get(f"/api/instructor/courses/{course}/members").json()}
    assert set(members) == {"s-1", "s-2"}, "the joiner claimed the roster row instead of adding one"
    assert members["s-1"]["joined_at"] is not None and members["s-1"]["name"] == "Grace Hopper"
    assert members["s-2"]["joined_at"] is None
    assert "Not yet joined" in teacher.client.get(page).text


def test_a_roster_row_claimed_by_one_learner_cannot_be_claimed_by_another(site: Server, teacher: Teacher,
                                                                         course: str) -> None:
    page = f"/instructor/courses/{course}"
    teacher.post(f"{page}/roster", page, roster="name,student id\nGrace Hopper,s-1\n")
    code = teacher.join_code(course)
    assert join(site.learner(), code, student_id="s-1").status_code == 303
    second = join(site.learner(), code, name="Mallory", student_id="s-1")
    assert second.status_code == 409 and "already joined" in said(second)


@pytest.mark.parametrize(("roster", "problem"), [
    pytest.param("Grace Hopper,s-1\n", "first row must name its columns", id="no-header"),
    pytest.param("name,email\nGrace,not-an-email\n", "line 2: 'not-an-email' is not an email address", id="email"),
    pytest.param("name,student id\nGrace,s-1\nAlan,s-1\n", "line 3: s-1 is also on line 2", id="duplicate"),
    pytest.param("name,student id\n,s-1\n", "line 2: no name", id="no-name"),
])
def test_a_roster_with_a_bad_row_imports_nothing_and_names_the_line(teacher: Teacher, course: str, roster: str,
                                                                   problem: str) -> None:
    page = f"/instructor/courses/{course}"
    response = teacher.post(f"{page}/roster", page, roster=roster)
    assert response.status_code == 400 and problem in said(response)
    assert teacher.client.get(f"/api/instructor/courses/{course}/members").json() == []


def test_a_roster_imports_through_the_api_as_csv(teacher: Teacher, course: str) -> None:
    response = teacher.client.post(f"/api/instructor/courses/{course}/roster",
                                   content="name,email\nGrace,g@uni.edu\n", headers={"content-type": "text/csv"})
    assert response.status_code == 200 and response.json()["added"] == 1


def test_a_shared_course_is_run_by_both_instructors(site: Server, teacher: Teacher, course: str) -> None:
    other = Teacher(site.app, "bob@example.edu")
    page = f"/instructor/courses/{course}"
    assert teacher.post(f"{page}/instructors", page, email="bob@example.edu").status_code == 303
    assert [c["id"] for c in other.client.get("/api/instructor/courses").json()] == [course]
    assert other.client.get(f"{page}/gradebook").status_code == 200


# --- assignments ----------------------------------------------------------------------------------------------


def test_a_due_time_before_the_open_time_is_refused_with_both_times(teacher: Teacher, course: str) -> None:
    response = teacher.create_assignment(course, problems=["add_one"], opens=datetime(2027, 3, 2, 9, tzinfo=UTC),
                                         due=datetime(2027, 3, 1, 17, tzinfo=UTC))
    assert response.status_code == 400
    assert "The due time (2027-03-01 17:00) must come after the open time (2027-03-01 09:00" not in said(response)
    assert "The due time (2027-03-01 17:00) must come after the open time (2027-03-02 09:00, both UTC)" \
        in said(response)


def test_an_unknown_problem_is_refused(teacher: Teacher, course: str) -> None:
    response = teacher.create_assignment(course, problems=["add_one", "no_such"])
    assert response.status_code == 400 and "There is no problem 'no_such' on this server" in said(response)


def test_times_are_entered_in_the_course_zone(teacher: Teacher) -> None:
    course = teacher.create_course(time_zone="Europe/London")
    summer = datetime(2027, 7, 1, 17, 0)  # 17:00 in London in summer is 16:00 UTC
    assignment = teacher.assignment(course, problems=["add_one"], opens=summer - timedelta(days=1), due=summer)
    detail = teacher.client.get(f"/api/instructor/courses/{course}/gradebook").json()["assignments"]
    assert [a["id"] for a in detail] == [assignment]
    assert detail[0]["due_at"].startswith("2027-07-01T16:00:00")


def test_an_unknown_time_zone_is_refused(teacher: Teacher) -> None:
    response = teacher.post("/instructor/courses", "/instructor/courses", title="X", time_zone="Mars/Olympus")
    assert response.status_code == 400 and "'Mars/Olympus' is not a time zone" in said(response)


# --- the gradebook, late policies, extensions and overrides ---------------------------------------------------


def enrolled(site: Server, teacher: Teacher, course: str, name: str) -> TestClient:
    learner = site.learner()
    assert join(learner, teacher.join_code(course), name=name).status_code == 303
    return learner


def test_an_on_time_solve_scores_full_marks_with_its_attempts(site: Server, teacher: Teacher, course: str) -> None:
    teacher.assignment(course, problems=["add_one", "add_one_b"])
    grace = enrolled(site, teacher, course, "Grace")
    assert run(grace, WRONG)["status"] == "done"
    assert run(grace, CORRECT)["report"]["solved"]
    book = teacher.gradebook(course)
    solved = cell(book, "Grace", "add_one")
    assert (solved["solved"], solved["attempts"], solved["late"], solved["score"]) == (True, 2, False, 1.0)
    untouched = cell(book, "Grace", "add_one_b")
    assert (untouched["solved"], untouched["attempts"], untouched["score"]) == (False, 0, 0.0)
    assert book["rows"][0]["results"][0]["points"] == 1.0


@pytest.mark.parametrize(("policy", "penalty", "floor", "hours_late", "score"), [
    pytest.param("penalty", 10, 50, 25, 0.8, id="two-started-days-at-10%"),
    pytest.param("penalty", 30, 50, 49, 0.5, id="down-to-the-floor"),
    pytest.param("none", 0, 0, 1, 0.0, id="no-late-credit"),
])
def test_a_late_solve_is_recorded_late_and_the_policy_decides_its_score(
        site: Server, teacher: Teacher, course: str, policy: str, penalty: int, floor: int, hours_late: int,
        score: float) -> None:
    due = NOW - timedelta(hours=hours_late) + timedelta(minutes=5)  # the solve comes just under hours_late late
    teacher.assignment(course, problems=["add_one"], opens=due - timedelta(days=7), due=due, policy=policy,
                       penalty=penalty, floor=floor)
    grace = enrolled(site, teacher, course, "Grace")
    assert run(grace, CORRECT)["report"]["solved"]
    solved = cell(teacher.gradebook(course), "Grace", "add_one")
    assert solved["late"] and solved["days_late"] == -(-hours_late // 24)
    assert solved["score"] == pytest.approx(score)


def test_an_extension_given_afterwards_rescores_the_late_solve_and_is_audited(
        site: Server, teacher: Teacher, course: str) -> None:
    assignment = teacher.assignment(course, problems=["add_one"], due=NOW - timedelta(hours=2),
                                    opens=NOW - timedelta(days=7))
    grace = enrolled(site, teacher, course, "Grace")
    assert run(grace, CORRECT)["report"]["solved"]
    assert cell(teacher.gradebook(course), "Grace", "add_one")["score"] == pytest.approx(0.9)
    member = teacher.gradebook(course)["rows"][0]["member"]["id"]
    page = f"/instructor/courses/{course}/assignments/{assignment}"
    response = teacher.post(f"{page}/extensions", page, member_id=member, due_at=local(NOW + timedelta(days=1)),
                            reason="Medical certificate")
    assert response.status_code == 303
    extended = cell(teacher.gradebook(course), "Grace", "add_one")
    assert (extended["late"], extended["score"]) == (False, 1.0)
    audit = teacher.client.get(f"/api/instructor/courses/{course}/audit").json()
    grant = next(e for e in audit if e["action"] == "extension.grant")
    assert grant["actor"] == "ada@example.edu" and grant["detail"]["reason"] == "Medical certificate"
    assert "(extended)" in grace.get(f"/courses/{course}").text


def test_an_extension_must_end_after_the_due_time_and_give_a_reason(site: Server, teacher: Teacher,
                                                                    course: str) -> None:
    assignment = teacher.assignment(course, problems=["add_one"], due=NOW + timedelta(days=1))
    enrolled(site, teacher, course, "Grace")
    member = teacher.gradebook(course)["rows"][0]["member"]["id"]
    page = f"/instructor/courses/{course}/assignments/{assignment}"
    early = teacher.post(f"{page}/extensions", page, member_id=member, due_at=local(NOW), reason="x")
    assert early.status_code == 400 and "must end after the assignment's due time" in said(early)
    no_reason = teacher.post(f"{page}/extensions", page, member_id=member, due_at=local(NOW + timedelta(days=3)),
                             reason=" ")
    assert no_reason.status_code == 400 and "Give a reason" in said(no_reason)


def test_an_override_replaces_the_cell_and_records_its_author_and_reason(site: Server, teacher: Teacher,
                                                                        course: str) -> None:
    assignment = teacher.assignment(course, problems=["add_one"])
    enrolled(site, teacher, course, "Grace")
    member = teacher.gradebook(course)["rows"][0]["member"]["id"]
    page = f"/instructor/courses/{course}/gradebook/{assignment}/{member}/add_one"
    assert teacher.post(page, page, action="set", score="75", reason="Solved on paper in the lab").status_code == 303
    overridden = cell(teacher.gradebook(course), "Grace", "add_one")
    assert overridden["score"] == 0.75
    assert overridden["override"]["author"] == "ada@example.edu"
    assert overridden["override"]["reason"] == "Solved on paper in the lab"
    assert teacher.post(page, page, action="clear", reason="Mistake").status_code == 303
    assert cell(teacher.gradebook(course), "Grace", "add_one")["override"] is None
    actions = [e["action"] for e in teacher.client.get(f"/api/instructor/courses/{course}/audit").json()]
    assert actions[:2] == ["grade.override_clear", "grade.override"]


@pytest.mark.parametrize("score", ["101", "-1", "nan", "lots"])
def test_an_override_outside_0_to_100_is_refused(site: Server, teacher: Teacher, course: str, score: str) -> None:
    assignment = teacher.assignment(course, problems=["add_one"])
    enrolled(site, teacher, course, "Grace")
    member = teacher.gradebook(course)["rows"][0]["member"]["id"]
    page = f"/instructor/courses/{course}/gradebook/{assignment}/{member}/add_one"
    response = teacher.post(page, page, action="set", score=score, reason="r")
    assert response.status_code == 400 and "percentage from 0 to 100" in said(response)


def test_revealed_then_solved_is_marked(site: Server, teacher: Teacher, course: str) -> None:
    teacher.assignment(course, problems=["add_one"])
    grace = enrolled(site, teacher, course, "Grace")
    for _ in range(3):
        run(grace, WRONG)
    assert grace.post("/api/problems/add_one/solution/reveal").status_code == 200
    assert run(grace, CORRECT)["report"]["solved"]
    assert cell(teacher.gradebook(course), "Grace", "add_one")["revealed_then_solved"] is True


def test_the_learners_pages_show_due_times_policy_and_progress(site: Server, teacher: Teacher, course: str) -> None:
    assignment = teacher.assignment(course, problems=["add_one", "add_one_b"], policy="penalty", penalty=10,
                                    floor=50)
    grace = enrolled(site, teacher, course, "Grace")
    run(grace, CORRECT)
    page = grace.get(f"/courses/{course}/assignments/{assignment}").text
    assert "loses 10% of its score per started day late, down to 50%" in page
    assert 'data-countdown="' in page and "data-zoned-time" in page
    assert "Score so far: <strong>1 of 2</strong>" in page
    progress = grace.get(f"/api/courses/{course}").json()
    assert progress["results"][0]["solved"] == 1


def test_a_course_page_is_not_shown_to_a_learner_outside_it(site: Server, course: str) -> None:
    response = site.learner().get(f"/courses/{course}")
    assert response.status_code == 404 and "You are not in this course" in said(response)


# --- exports --------------------------------------------------------------------------------------------------


def test_the_csv_export_follows_the_gradebook_and_neutralises_formulas(site: Server, teacher: Teacher,
                                                                       course: str) -> None:
    teacher.assignment(course, problems=["add_one"])
    mallory = enrolled(site, teacher, course, '=HYPERLINK("http://evil.example","x")')
    run(mallory, CORRECT)
    page = f"/instructor/courses/{course}"
    teacher.post(f"{page}/roster", page, roster="name,student id\n@SUM(1+1),+44\n")
    response = teacher.client.get(f"/api/instructor/courses/{course}/gradebook.csv")
    assert response.status_code == 200 and response.text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(response.text.lstrip("\ufeff"))))
    names = {row["name"] for row in rows}
    assert names == {"'=HYPERLINK(\"http://evil.example\",\"x\")", "'@SUM(1+1)"}
    assert {row["student_id"] for row in rows} == {"", "'+44"}
    solved = next(row for row in rows if row["name"].startswith("'=HYPERLINK"))
    assert (solved["solved"], solved["score_percent"], solved["late"]) == ("True", "100.0", "False")


def test_the_score_layout_has_one_row_per_learner_and_the_json_the_same_rows(
        site: Server, teacher: Teacher, course: str) -> None:
    teacher.assignment(course, problems=["add_one", "add_one_b"], title="Week 1")
    run(enrolled(site, teacher, course, "Grace"), CORRECT)
    scores = teacher.client.get(f"/api/instructor/courses/{course}/gradebook.csv?layout=scores").text
    rows = list(csv.DictReader(io.StringIO(scores.lstrip("\ufeff"))))
    assert len(rows) == 1
    assert rows[0]["Week 1 / add_one"] == "100.0" and rows[0]["Week 1 (points of 2)"] == "1.0"
    as_json = teacher.client.get(f"/api/instructor/courses/{course}/gradebook.json?layout=scores").json()
    assert as_json["rows"][0]["Week 1 / add_one_b"] == 0.0


# --- who sees what --------------------------------------------------------------------------------------------


def course_routes(course: str, assignment: str, member: str) -> list[tuple[str, str]]:
    base, api = f"/instructor/courses/{course}", f"/api/instructor/courses/{course}"
    cell_page = f"{base}/gradebook/{assignment}/{member}/add_one"
    return [("GET", base), ("GET", f"{base}/gradebook"), ("GET", f"{base}/audit"), ("GET", cell_page),
            ("GET", f"{base}/assignments/{assignment}"), ("GET", f"{base}/problems/add_one"),
            ("GET", f"{api}/gradebook"), ("GET", f"{api}/gradebook.csv"), ("GET", f"{api}/gradebook.json"),
            ("GET", f"{api}/members"), ("GET", f"{api}/audit"), ("GET", f"{api}/problems/add_one/stats"),
            ("POST", f"{base}/roster"), ("POST", f"{base}/instructors"), ("POST", f"{base}/join-code"),
            ("POST", f"{base}/assignments"), ("POST", f"{base}/assignments/{assignment}"),
            ("POST", f"{base}/assignments/{assignment}/extensions"), ("POST", cell_page), ("POST", f"{base}/lti"),
            ("POST", f"{api}/roster")]


def test_another_instructor_gets_404_from_every_route_of_a_course_not_theirs(
        site: Server, teacher: Teacher, course: str) -> None:
    """Hostile: Bob knows Ada's course, assignment and member ids and carries his own valid CSRF token."""
    assignment = teacher.assignment(course, problems=["add_one"])
    enrolled(site, teacher, course, "Grace")
    member = teacher.gradebook(course)["rows"][0]["member"]["id"]
    bob = Teacher(site.app, "bob@example.edu")
    bob_course = bob.create_course("Bob's")
    from tests.app.instructor_support import csrf_from

    name, token = csrf_from(bob.client.get(f"/instructor/courses/{bob_course}").text)
    for method, path in course_routes(course, assignment, member):
        data: dict[str, Any] = {name: token, "email": "bob@example.edu", "roster": "name,email\nx,x@y.z\n",
                                "action": "set", "score": "100", "reason": "r", "member_id": member,
                                "due_at": local(NOW + timedelta(days=9)), "title": "t"}
        response = bob.client.request(method, path, data=data if method == "POST" else None,
                                      follow_redirects=False)
        assert response.status_code == 404, (method, path, response.status_code)
    assert bob.client.get("/api/instructor/courses").json()[0]["id"] == bob_course
    assert cell(teacher.gradebook(course), "Grace", "add_one")["override"] is None, "nothing of Ada's changed"
    assert len(teacher.client.get(f"/api/instructor/courses/{course}/members").json()) == 1


def test_course_forms_need_the_sessions_csrf_token(teacher: Teacher, course: str) -> None:
    response = teacher.client.post(f"/instructor/courses/{course}/join-code", data={"csrf_token": "forged"},
                                   follow_redirects=False)
    assert response.status_code == 403


def test_an_assignment_of_another_course_is_not_reachable_through_ones_own(site: Server, teacher: Teacher,
                                                                          course: str) -> None:
    """Hostile: Bob runs a course of his own and names Ada's assignment under it."""
    assignment = teacher.assignment(course, problems=["add_one"])
    bob = Teacher(site.app, "bob@example.edu")
    own = bob.create_course("Bob's")
    response = bob.client.get(f"/instructor/courses/{own}/assignments/{assignment}")
    assert response.status_code == 404
