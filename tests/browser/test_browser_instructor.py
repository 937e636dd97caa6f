"""The instructor's side in Chromium: sign in, the dashboard with its charts and tables, a learner's attempts,
and a learner's browser kept out. Screenshots go to PAPERLAB_SHOTS_DIR (default test-artifacts/browser)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from tests.browser.browser_support import ARTIFACTS, REPO, SERVER_START_TIMEOUT_S, Learner, moco_mutant

pytestmark = pytest.mark.browser

MOCO = REPO / "problems" / "moco"
EMAIL, PASSWORD = "ada@example.edu", "correct horse battery staple"
SHOTS = Path(os.environ.get("PAPERLAB_SHOTS_DIR", str(ARTIFACTS)))


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Site:
    url: str
    problems: Path
    learner_cookie: str  # the second learner's, whose attempts failed
    failed_attempt: str
    start: Callable[[], None]
    stop: Callable[[], None]


def _grade(client: httpx.Client, code: str) -> str:
    response = client.post("/api/problems/moco/submissions", json={"code": code})
    assert response.status_code == 202, response.text
    submission_id: str = response.json()["id"]
    deadline = time.monotonic() + 120
    while client.get(f"/api/submissions/{submission_id}").json()["status"] not in ("done", "error"):
        assert time.monotonic() < deadline, "no verdict within 120 s"
        time.sleep(0.2)
    return submission_id


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A server of its own (MoCo only, in a folder the regrade test may change), an instructor account and three
    gradings of MoCo by two learners."""
    root = tmp_path_factory.mktemp("instructor-site")
    problems = root / "problems"
    shutil.copytree(MOCO, problems / "moco")
    env = {**os.environ, "PAPERLAB_VAR_DIR": str(root / "var"), "DATABASE_URL": f"sqlite:///{root}/db.sqlite",
           "PAPERLAB_PROBLEMS_DIR": str(problems)}
    subprocess.run([sys.executable, "-m", "app", "instructor", "add", EMAIL, "--password-stdin"], input=PASSWORD,
                   text=True, env=env, cwd=REPO, check=True, timeout=120)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    running: list[tuple[subprocess.Popen[bytes], Any]] = []

    def start() -> None:
        log = (root / "server.log").open("ab")
        server = subprocess.Popen([sys.executable, "-m", "app", "serve", "--port", str(port)], cwd=REPO, env=env,
                                  stdout=log, stderr=subprocess.STDOUT)
        running.append((server, log))
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.3)

    def stop() -> None:
        while running:
            server, log = running.pop()
            server.terminate()
            server.wait(timeout=30)
            log.close()

    try:
        start()
        mistake = moco_mutant("temperature_multiplies.py")
        with httpx.Client(base_url=url, timeout=30) as first, httpx.Client(base_url=url, timeout=30) as second:
            _grade(first, mistake)
            _grade(first, (MOCO / "reference.py").read_text())
            failed = _grade(second, mistake)
            first.post("/me/profile", data={"display_name": "Grace H.", "student_id": "s-1906",
                                            "next": "/problems/moco/history"})
            cookie = second.cookies["paperlab_learner"]
        yield Site(url=url, problems=problems, learner_cookie=cookie, failed_attempt=failed, start=start, stop=stop)
    finally:
        stop()


@pytest.fixture
def tab(browser: Browser, site: Site, request: pytest.FixtureRequest) -> Iterator[Learner]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB", timezone_id="UTC")
    context.set_default_timeout(15_000)
    page = context.new_page()
    tab = Learner(page=page, base_url=site.url, name=request.node.name.removeprefix("test_"))
    page.on("pageerror", lambda error: tab.problems.append(f"uncaught: {error}"))
    yield tab
    context.close()
    assert not tab.problems, "\n".join(tab.problems)


def shot(tab: Learner, step: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.shots += 1
    tab.page.screenshot(path=str(SHOTS / f"{tab.name}-{tab.shots:02d}-{step}.png"), full_page=True)


def sign_in(tab: Learner) -> None:
    tab.goto("/instructor")
    assert "/instructor/login" in tab.page.url  # signed out: sent to the form
    shot(tab, "sign-in-form")
    tab.page.fill("input[name=email]", EMAIL)
    tab.page.fill("input[name=password]", PASSWORD)
    tab.page.click("button[type=submit]")
    tab.page.wait_for_selector("#problem-overview")


def test_sign_in_then_the_dashboard_and_a_problems_charts(tab: Learner) -> None:
    sign_in(tab)
    moco = tab.page.locator("#problem-overview tr", has_text="MoCo")
    assert moco.locator("td").nth(1).inner_text() == "2"  # learners who tried
    shot(tab, "dashboard")
    moco.locator("a").click()
    tab.page.wait_for_selector("html[data-ready='true']")
    tab.page.wait_for_selector(".bar-chart[data-chart='checks'] canvas")
    headline = tab.page.inner_text("#headline")
    assert "LEARNERS TRIED\n2" in headline.upper() and "ATTEMPTS\n3" in headline.upper()
    assert tab.page.locator(".bar-chart canvas").count() == 3  # checks, first failures, known mistakes
    assert "multiplies the logits by the temperature" in tab.page.inner_text("#diagnosis-table")
    shot(tab, "problem-stats")


def test_a_learners_attempts_open_the_page_the_learner_sees(tab: Learner) -> None:
    sign_in(tab)
    tab.page.click("nav >> text=Learners")
    tab.page.wait_for_selector("#learner-table")
    assert "s-1906" in tab.page.inner_text("#learner-table")
    shot(tab, "learners")
    tab.page.click("#learner-table >> text=Grace H.")
    tab.page.wait_for_selector("#learner-attempts")
    shot(tab, "learner")
    tab.page.locator("#learner-attempts a").first.click()
    tab.page.wait_for_selector(".code-block")
    assert "def moco_loss" in tab.page.inner_text(".code-block")
    shot(tab, "learner-submission")


def test_sign_out_returns_to_the_form(tab: Learner) -> None:
    sign_in(tab)
    tab.page.click("button:has-text('Sign out')")
    tab.page.wait_for_url("**/instructor/login")
    tab.goto("/instructor")
    assert "/instructor/login" in tab.page.url


def test_a_learners_browser_is_refused(tab: Learner) -> None:
    tab.goto("/")  # now it holds a learner cookie
    response = tab.page.goto(tab.base_url + "/instructor")
    assert response is not None and response.status == 403
    shot(tab, "learner-refused")


def as_the_failing_learner(tab: Learner, site: Site) -> None:
    tab.page.context.add_cookies([{"name": "paperlab_learner", "value": site.learner_cookie, "url": site.url}])


def test_a_learner_reports_a_check_and_reads_the_instructors_reply(tab: Learner, site: Site,
                                                                  browser: Browser) -> None:
    as_the_failing_learner(tab, site)
    tab.goto(f"/submissions/{site.failed_attempt}")
    failed = tab.page.locator("li.check--failed").first
    if not failed.locator(".report-check__toggle").is_visible():  # the first failure is open already
        failed.locator("summary").first.click()
    failed.locator(".report-check__toggle").click()
    failed.locator(".report-check textarea").fill("The message says 'temperature' but I divide by it already.")
    shot(tab, "report-form")
    failed.locator(".report-check button[type=submit]").click()
    tab.page.wait_for_selector("text=Sent. Your instructor's reply will show on this attempt's page.")
    shot(tab, "report-sent")
    check_id = failed.get_attribute("data-check-id")

    instructor = Learner(page=browser.new_context(viewport={"width": 1280, "height": 900}).new_page(),
                         base_url=site.url, name=tab.name + "-instructor")
    sign_in(instructor)
    instructor.page.click("nav >> text=Reports")
    item = instructor.page.locator(".report-item", has_text=str(check_id))
    assert "% of attempts" in item.inner_text()
    shot(instructor, "inbox")
    item.locator("textarea").fill("That check multiplies on purpose: read its second paragraph again.")
    item.locator("button").click()
    instructor.page.wait_for_selector("text=No open reports.")
    instructor.page.context.close()

    tab.goto(f"/submissions/{site.failed_attempt}")
    assert "That check multiplies on purpose" in tab.page.inner_text(".check-report")
    shot(tab, "reply-seen")


def test_regrade_after_the_problem_changed(tab: Learner, site: Site) -> None:
    """Last in this module: it changes the problem and restarts the server."""
    site.stop()
    checks = site.problems / "moco" / "checks.py"
    checks.write_text(checks.read_text() + "\n# A comment is enough to change the battery's hash.\n")
    site.start()
    sign_in(tab)
    tab.page.click("button:has-text('Regrade stale attempts')")
    tab.page.wait_for_selector("#regrade-progress")
    shot(tab, "regrade-started")
    deadline = time.monotonic() + 120
    while tab.page.get_attribute("#regrade-progress", "data-running") == "true":
        assert time.monotonic() < deadline, tab.page.inner_text("#regrade-progress")
        time.sleep(1)
        tab.goto("/instructor")
    assert "2 done · 0 being graded · 0 waiting" in tab.page.inner_text("#regrade-progress")
    shot(tab, "regrade-done")
    as_the_failing_learner(tab, site)
    tab.goto(f"/submissions/{site.failed_attempt}")
    note = tab.page.inner_text("#regrade-note")
    assert "Re-graded after the problem changed:" in note
    shot(tab, "learner-sees-regrade")
