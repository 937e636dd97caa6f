"""Shared by the browser tests and their fixtures: paths, Chromium's flags, timeouts, the Learner tab."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Page, Response

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"
CHROMIUM = Path(os.environ.get("PAPERLAB_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",  # the tests run as root in a container, where Chromium's own sandbox cannot start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The first grading waits for warm sandboxes (importing torch takes about a second each).
SERVER_START_TIMEOUT_S = 90
VERDICT_TIMEOUT_MS = 90_000


@dataclass
class Learner:
    """One learner's browser tab, plus what went wrong in it (JS errors, CSP violations)."""

    page: Page
    base_url: str
    name: str
    problems: list[str] = field(default_factory=list)
    shots: int = 0

    def goto(self, path: str) -> Response | None:
        response = self.page.goto(self.base_url + path)
        self.page.wait_for_selector("html[data-ready]")
        return response

    def screenshot(self, step: str, *, full_page: bool = True) -> Path:
        self.shots += 1
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{self.name}-{self.shots:02d}-{step}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path


def moco_mutant(name: str) -> str:  # name: the file name, e.g. "temperature_multiplies.py"
    """The whole source a learner would submit for one of MoCo's mutants (most are patches over the reference,
    so the file alone is not a submission)."""
    from grader import load_problem

    sources = {m.name: m.code for m in load_problem(REPO / "problems" / "moco").mutant_sources()}
    return sources[name]

