"""The instructor's side in Chromium: sign in, the dashboard with its charts and tables, a learner's attempts,
and a learner's browser kept out. Screenshots go to PAPERLAB_SHOTS_DIR (default test-artifacts/browser)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser

from tests.browser.browser_support import ARTIFACTS, REPO, SERVER_START_TIMEOUT_S, Learner

pytestmark = pytest.mark.browser

MOCO = REPO / "problems" / "moco"
EMAIL, PASSWORD = "ada@example.edu", "correct horse battery staple"
SHOTS = Path(os.environ.get("PAPERLAB_SHOTS_DIR", str(ARTIFACTS)))


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _grade(client: httpx.Client, code: str) -> None:
    response = client.post("/api/problems/moco/submissions", json={"code": code})
    assert response.status_code == 202, response.text
    deadline = time.monotonic() + 120
    while client.get(f"/api/submissions/{response.json()['id']}").json()["status"] not in ("done", "error"):
        assert time.monotonic() < deadline, "no verdict within 120 s"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own, with an instructor account and three gradings of MoCo by two learners."""
    var_dir = tmp_path_factory.mktemp("instructor-site")
    env = {**os.environ, "PAPERLAB_VAR_DIR": str(var_dir), "DATABASE_URL": f"sqlite:///{var_dir}/db.sqlite"}
    subprocess.run([sys.executable, "-m", "app", "instructor", "add", EMAIL, "--password-stdin"], input=PASSWORD,
                   text=True, env=env, cwd=REPO, check=True, timeout=120)
    port = _free_port()
    log = (var_dir / "server.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", "app", "serve", "--port", str(port)], cwd=REPO, env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
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
        mistake = (MOCO / "mutants" / "temperature_multiplies.py").read_text()
        with httpx.Client(base_url=url, timeout=30) as first, httpx.Client(base_url=url, timeout=30) as second:
            _grade(first, mistake)
            _grade(first, (MOCO / "reference.py").read_text())
            _grade(second, mistake)
            first.post("/me/profile", data={"display_name": "Grace H.", "student_id": "s-1906",
                                            "next": "/problems/moco/history"})
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.fixture
def tab(browser: Browser, site: str, request: pytest.FixtureRequest) -> Iterator[Learner]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB", timezone_id="UTC")
    context.set_default_timeout(15_000)
    page = context.new_page()
    tab = Learner(page=page, base_url=site, name=request.node.name.removeprefix("test_"))
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
    assert tab.page.inner_text("#headline") .count("2") >= 1
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
