"""Browser end-to-end fixtures: the real server on a free port with a throw-away database, and Debian's
Chromium driven by Playwright (its own browser download cannot reach its host here).

Each test gets a fresh browser context, i.e. a fresh learner cookie: a new learner. Screenshots of every step
land in test-artifacts/browser/ (git-ignored) for a human to look at."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, sync_playwright

from tests.browser.browser_support import CHROMIUM, CHROMIUM_ARGS, REPO, SERVER_START_TIMEOUT_S, Learner


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def serve(var_dir: Path, *, env: dict[str, str] | None = None, args: tuple[str, ...] = ()) -> Iterator[str]:
    """`python -m app serve` on a free port with a throw-away database under var_dir; yields its base URL."""
    if not (REPO / "static" / "dist" / "app.js").is_file():
        pytest.fail("static/dist/app.js is missing: build the bundle first (`make setup` or `npm run build`)")
    port = _free_port()
    environment = {
        **os.environ,
        "PAPERLAB_VAR_DIR": str(var_dir),
        "DATABASE_URL": f"sqlite:///{var_dir}/db.sqlite",
        **(env or {}),
    }
    python = REPO / ".venv" / "bin" / "python"
    log_path = var_dir / "server.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [
                str(python if python.exists() else sys.executable),
                "-m",
                "app",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                *args,
            ],
            cwd=REPO,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while not _healthy(url):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-4000:]
                pytest.fail(f"the server did not come up on {url} (exit {server.poll()}):\n{tail}")
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(tmp_path_factory.mktemp("paperlab-var")) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        found = shutil.which("chromium")
        if found is None:
            pytest.fail(f"Chromium not found at {CHROMIUM}; `make chromium` installs Debian's package")
        executable = found
    else:
        executable = str(CHROMIUM)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@contextlib.contextmanager
def open_tab(browser: Browser, base_url: str, name: str) -> Iterator[Learner]:
    """A fresh browser context (a new learner) on `base_url`; fails the test if its pages logged errors."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB", timezone_id="UTC")
    context.set_default_timeout(15_000)
    page = context.new_page()
    tab = Learner(page=page, base_url=base_url, name=name)

    def on_console(message: ConsoleMessage) -> None:
        # 4xx pages (the locked notes) log their own status as a failed resource; that is not a bug.
        if message.type == "error" and "Failed to load resource" not in message.text:
            tab.problems.append(f"console error: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: tab.problems.append(f"uncaught: {error}"))
    yield tab
    context.close()
    assert not tab.problems, "the page logged errors:\n" + "\n".join(tab.problems)


@pytest.fixture
def learner(browser: Browser, live_server: str, request: pytest.FixtureRequest) -> Iterator[Learner]:
    with open_tab(browser, live_server, request.node.name.removeprefix("test_")) as tab:
        yield tab
