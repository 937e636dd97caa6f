"""Courses in Chromium: a learner joins with the code and follows an assignment (due time in their zone, a
countdown, the policy in words) by keyboard; an instructor reads the gradebook, opens a cell by keyboard and sets
a manual score; axe finds no serious violation on any course page in either theme. Screenshots go to
PAPERLAB_SHOTS_DIR (default test-artifacts/browser), the gradebook's among them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser

from tests.app.app_support import CORRECT, PROBLEMS, WRONG
from tests.browser.browser_support import ARTIFACTS, REPO, SERVER_START_TIMEOUT_S, Learner
from tests.browser.test_browser_a11y import axe_violations

pytestmark = pytest.mark.browser

EMAIL, PASSWORD = "ada@example.edu", "correct horse battery staple"
SHOTS = Path(os.environ.get("PAPERLAB_SHOTS_DIR", str(ARTIFACTS)))
LEARNERS = 24


@dataclass
class Site:
    url: str
    course: str
    assignment: str
    late_assignment: str
    code: str


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _csrf(page: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match, page[:500]
    return match.group(1)


def _post(client: httpx.Client, path: str, page: str, **fields: str) -> httpx.Response:
    return client.post(path, data={"csrf_token": _csrf(client.get(page).text), **fields})


def _grade(client: httpx.Client, code: str) -> None:
    submitted = client.post("/api/problems/add_one/submissions", json={"code": code})
    assert submitted.status_code == 202, submitted.text
    deadline = time.monotonic() + 120
    while client.get(f"/api/submissions/{submitted.json()['id']}").json()["status"] not in ("done", "error"):
        assert time.monotonic() < deadline, "no verdict within 120 s"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A server of its own with two small problems, an instructor, a course of two assignments (one past its due
    time), a roster, and learners who joined and solved, one of them late, one with an extension."""
    root = tmp_path_factory.mktemp("course-site")
    problems = root / "problems"
    shutil.copytree(PROBLEMS / "add_one", problems / "add_one")
    shutil.copytree(PROBLEMS / "add_one", problems / "add_one_b")
    toml = problems / "add_one_b" / "problem.toml"
    toml.write_text(toml.read_text().replace('slug = "add_one"', 'slug = "add_one_b"')
                    .replace('title = "Add one"', 'title = "Add one again"'))
    env = {**os.environ, "PAPERLAB_VAR_DIR": str(root / "var"), "DATABASE_URL": f"sqlite:///{root}/db.sqlite",
           "PAPERLAB_PROBLEMS_DIR": str(problems), "PAPERLAB_RATE_LIMIT_PER_MINUTE": "1000"}
    subprocess.run([sys.executable, "-m", "app", "instructor", "add", EMAIL, "--password-stdin"], input=PASSWORD,
                   text=True, env=env, cwd=REPO, check=True, timeout=120)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    with (root / "server.log").open("ab") as log:
        server = subprocess.Popen([sys.executable, "-m", "app", "serve", "--port", str(port)], cwd=REPO, env=env,
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.3)
        yield _populate(url)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _populate(url: str) -> Site:
    now = datetime.now(UTC)
    with httpx.Client(base_url=url, timeout=60, follow_redirects=True) as teacher:
        login = teacher.get("/instructor/login").text
        teacher.post("/instructor/login", data={"csrf_token": _csrf(login), "email": EMAIL, "password": PASSWORD})
        made = _post(teacher, "/instructor/courses", "/instructor/courses", title="Machine Learning 2027",
                     time_zone="Europe/London")
        course = str(made.url).split("/")[-1]
        new = f"/instructor/courses/{course}/assignments/new"
        week = _post(teacher, f"/instructor/courses/{course}/assignments", new, title="Week 1: basics",
                     opens_at=(now - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M"),
                     due_at=(now + timedelta(days=2, hours=5)).strftime("%Y-%m-%dT%H:%M"), late_policy="penalty",
                     penalty_percent="10", floor_percent="50", order="add_one, add_one_b")
        late = _post(teacher, f"/instructor/courses/{course}/assignments", new, title="Warm-up",
                     opens_at=(now - timedelta(days=9)).strftime("%Y-%m-%dT%H:%M"),
                     due_at=(now - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M"), late_policy="penalty",
                     penalty_percent="20", floor_percent="40", order="add_one")
        page = f"/instructor/courses/{course}"
        roster = "name,student id,email\n" + "".join(
            f"Learner {n:02d},s-{n:03d},l{n}@uni.example\n" for n in range(LEARNERS + 6))
        _post(teacher, f"{page}/roster", page, roster=roster)
        code = re.search(r'id="join-code">([A-Z0-9-]+)<', teacher.get(page).text).group(1)  # type: ignore[union-attr]
        for n in range(LEARNERS):
            with httpx.Client(base_url=url, timeout=60, follow_redirects=True) as learner:
                learner.post("/courses/join", data={"code": code, "name": f"Learner {n:02d}",
                                                    "student_id": f"s-{n:03d}"})
                for _ in range(n % 3):
                    _grade(learner, WRONG)
                if n % 4 != 3:
                    _grade(learner, CORRECT)
        book = teacher.get(f"/api/instructor/courses/{course}/gradebook").json()
        member = book["rows"][0]["member"]["id"]
        warm_up = str(late.url).split("/")[-1]
        _post(teacher, f"/instructor/courses/{course}/assignments/{warm_up}/extensions",
              f"/instructor/courses/{course}/assignments/{warm_up}", member_id=member,
              due_at=(now + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"), reason="Medical certificate")
        return Site(url=url, course=course, assignment=str(week.url).split("/")[-1], late_assignment=warm_up,
                    code=code)


@pytest.fixture
def tab(browser: Browser, site: Site, request: pytest.FixtureRequest) -> Iterator[Learner]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB",
                                  timezone_id="America/New_York")
    context.set_default_timeout(20_000)
    page = context.new_page()
    tab = Learner(page=page, base_url=site.url, name=request.node.name.removeprefix("test_"))
    page.on("pageerror", lambda error: tab.problems.append(f"uncaught: {error}"))
    yield tab
    context.close()
    assert not tab.problems, "\n".join(tab.problems)


def shot(tab: Learner, step: str, *, full_page: bool = True) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.shots += 1
    path = SHOTS / f"{tab.name}-{tab.shots:02d}-{step}.png"
    tab.page.screenshot(path=str(path), full_page=full_page)
    return path


def sign_in(tab: Learner) -> None:
    tab.goto("/instructor/login")
    tab.page.fill("input[name=email]", EMAIL)
    tab.page.fill("input[name=password]", PASSWORD)
    tab.page.press("input[name=password]", "Enter")
    tab.page.wait_for_url("**/instructor")


def test_a_learner_joins_by_keyboard_and_sees_due_times_in_their_zone(tab: Learner, site: Site) -> None:
    page = tab.page
    tab.goto("/courses")
    page.focus("input[name=code]")
    page.keyboard.type(site.code.lower())
    page.keyboard.press("Tab")
    page.keyboard.type("Learner 27")
    page.keyboard.press("Tab")
    page.keyboard.type("s-027")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/courses/{site.course}")
    page.wait_for_selector("html[data-ready='true']")
    due = page.locator("#assignments .due").first.inner_text()
    assert re.search(r"\b(EST|EDT|GMT-[45])\b", due), f"the due time names the reader's zone: {due}"
    countdown = page.locator(".countdown").first.inner_text()
    assert countdown.startswith("Due in 2 days"), countdown
    shot(tab, "course")
    page.click("text=Week 1: basics")
    page.wait_for_selector("#late-policy")
    assert "loses 10% of its score per started day late, down to 50%" in page.inner_text("#late-policy")
    assert page.locator("#assignment-problems tbody tr").count() == 2
    shot(tab, "assignment")


def test_the_instructor_reads_the_gradebook_and_sets_a_manual_score_by_keyboard(tab: Learner, site: Site) -> None:
    page = tab.page
    sign_in(tab)
    tab.goto(f"/instructor/courses/{site.course}")
    assert "Not yet joined" in page.inner_text("#roster-table")
    shot(tab, "course-page")
    tab.goto(f"/instructor/courses/{site.course}/gradebook")
    page.wait_for_selector("#gradebook")
    assert page.locator("#gradebook tbody tr").count() == LEARNERS + 6
    assert page.locator("#gradebook td.cell--late").count() > 0, "late solves of the warm-up are marked"
    page.emulate_media(color_scheme="light")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "gradebook.png"), full_page=False)
    first_cell = page.locator("#gradebook tbody td a").first
    first_cell.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#cell-facts")
    page.focus("input[name=score]")
    page.keyboard.type("85")
    page.keyboard.press("Tab")
    page.keyboard.type("Solved on paper in the lab")
    page.keyboard.press("Enter")
    page.wait_for_selector("#gradebook")
    assert page.locator("#gradebook td.cell--override").count() == 1
    tab.goto(f"/instructor/courses/{site.course}/audit")
    assert "Solved on paper in the lab" in page.inner_text("#audit-table")


def course_pages(site: Site) -> tuple[list[str], list[str]]:
    learner = ["/courses", f"/join/{site.code}", "/account", "/lti"]
    instructor = ["/instructor/courses", f"/instructor/courses/{site.course}",
                  f"/instructor/courses/{site.course}/gradebook",
                  f"/instructor/courses/{site.course}/assignments/{site.assignment}",
                  f"/instructor/courses/{site.course}/assignments/new", f"/instructor/courses/{site.course}/audit",
                  f"/instructor/courses/{site.course}/problems/add_one"]
    return learner, instructor


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_serious_accessibility_violation_on_the_course_pages(tab: Learner, site: Site, theme: str) -> None:
    page = tab.page
    page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
    found: dict[str, list[str]] = {}

    def check(paths: list[str]) -> None:
        for path in paths:
            tab.goto(path)
            page.wait_for_timeout(150)
            for violation in axe_violations(page, site.url):
                targets = [str(node["target"]) for node in violation["nodes"][:3]]
                found.setdefault(path, []).append(f"{violation['id']} ({violation['impact']}): {targets}")

    learner_pages, instructor_pages = course_pages(site)
    tab.goto("/courses")
    page.fill("input[name=code]", site.code)
    page.fill("input[name=name]", "Learner 28")
    page.fill("input[name=student_id]", f"s-{28 if theme == 'light' else 29:03d}")
    page.click("#join-heading ~ form button[type=submit]")
    page.wait_for_url(f"**/courses/{site.course}")
    check(learner_pages + [f"/courses/{site.course}", f"/courses/{site.course}/assignments/{site.assignment}"])
    page.context.clear_cookies()
    sign_in(tab)
    check(instructor_pages)
    tab.goto(f"/instructor/courses/{site.course}/gradebook")
    href = page.locator("#gradebook tbody td a").first.get_attribute("href")
    check([str(href)])
    if theme == "dark":
        tab.goto(f"/instructor/courses/{site.course}/gradebook")
        page.screenshot(path=str(SHOTS / "gradebook-dark.png"), full_page=False)
    assert not found, "axe found:\n" + "\n".join(f"{p}: {v}" for p, vs in found.items() for v in vs)
