"""Helpers for the courses' tests: a second fixture problem, an instructor who makes a course and assignments
through the forms, learners who join with the code."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.app.app_support import PROBLEMS, TestClient
from tests.app.instructor_support import csrf_from, make_instructor, sign_in

COURSE_LINK = re.compile(r'href="/instructor/courses/([0-9a-f-]{36})"')
ASSIGNMENT_LINK = re.compile(r"/instructor/courses/[0-9a-f-]{36}/assignments/([0-9a-f-]{36})")
JOIN_CODE = re.compile(r'id="join-code">([A-Z0-9-]+)<')


def two_problems(destination: Path) -> Path:
    """add_one, and add_one_b: the same problem under another slug (an assignment of two problems)."""
    shutil.copytree(PROBLEMS / "add_one", destination / "add_one")
    shutil.copytree(PROBLEMS / "add_one", destination / "add_one_b")
    toml = destination / "add_one_b" / "problem.toml"
    toml.write_text(toml.read_text().replace('slug = "add_one"', 'slug = "add_one_b"')
                    .replace('title = "Add one"', 'title = "Add one again"'))
    return destination


def local(moment: datetime) -> str:
    """A `datetime-local` value in UTC (the test courses' zone)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")


class Teacher:
    """A signed-in instructor's browser, acting through the pages' forms."""

    def __init__(self, app: Any, email: str = "ada@example.edu", *, make: bool = True) -> None:
        if make:
            make_instructor(app, email=email)
        self.client = TestClient(app)
        self.email = email
        response = sign_in(self.client, email=email)
        assert response.status_code == 303, response

    def post(self, path: str, page: str, **fields: Any) -> Any:
        """POST a form of `page` (whose CSRF token it carries) to `path`."""
        name, token = csrf_from(self.client.get(page).text)
        return self.client.post(path, data={name: token, **fields}, follow_redirects=False)

    def create_course(self, title: str = "Deep learning 101", time_zone: str = "UTC") -> str:
        response = self.post("/instructor/courses", "/instructor/courses", title=title, time_zone=time_zone)
        assert response.status_code == 303, response.text
        return str(response.headers["location"]).split("/")[-1].split("?")[0]

    def join_code(self, course_id: str) -> str:
        match = JOIN_CODE.search(self.client.get(f"/instructor/courses/{course_id}").text)
        assert match, "no join code on the course page"
        return match.group(1)

    def create_assignment(self, course_id: str, *, problems: list[str], opens: datetime | None = None,
                          due: datetime | None = None, policy: str = "penalty", penalty: int = 10,
                          floor: int = 50, title: str = "Week 1") -> Any:
        now = datetime.now(UTC)
        return self.post(f"/instructor/courses/{course_id}/assignments",
                         f"/instructor/courses/{course_id}/assignments/new",
                         title=title, opens_at=local(opens or now - timedelta(days=3)),
                         due_at=local(due or now + timedelta(days=3)), late_policy=policy,
                         penalty_percent=str(penalty), floor_percent=str(floor), order=", ".join(problems))

    def assignment(self, course_id: str, **kwargs: Any) -> str:
        response = self.create_assignment(course_id, **kwargs)
        assert response.status_code == 303, response.text
        return str(response.headers["location"]).split("/")[-1]

    def gradebook(self, course_id: str) -> dict[str, Any]:
        response = self.client.get(f"/api/instructor/courses/{course_id}/gradebook")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


def join(client: TestClient, code: str, name: str = "Grace Hopper", student_id: str = "") -> Any:
    return client.post("/courses/join", data={"code": code, "name": name, "student_id": student_id},
                       follow_redirects=False)


def cell(book: dict[str, Any], name: str, problem: str, assignment: int = 0) -> dict[str, Any]:
    row = next(r for r in book["rows"] if r["member"]["name"] == name)
    found: dict[str, Any] = next(c for c in row["results"][assignment]["cells"] if c["problem"] == problem)
    return found
