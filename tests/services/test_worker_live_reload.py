"""Live reload reaches the Celery workers: a problem folder added while the site runs is graded by a worker as
soon as the web server lists it, and a check added to it afterwards is in the very next report (the workers
look at the folder again before each grading; they never grade with the battery the web no longer shows)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.services.services_support import CORRECT, Cluster, submit, wait_for_verdict

pytestmark = [pytest.mark.services, pytest.mark.slow]

SLUG = "add_one_live"
ADDED_CHECK = '''

@check("add_one.added_later", "A check the author added while the site ran")
def added_later(sub, ref):
    expect_close(sub.add_one(torch.tensor([5.0])), torch.tensor([6.0]))
'''


@pytest.fixture
def live_folder(cluster: Cluster) -> Iterator[Path]:
    problems = Path(cluster.web_env["PAPERLAB_PROBLEMS_DIR"])
    folder = problems / SLUG
    shutil.copytree(problems / "add_one", folder)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace('slug = "add_one"', f'slug = "{SLUG}"'))
    yield folder
    shutil.rmtree(folder)


def listed_checks(client: httpx.Client) -> int | None:
    """The web server's check count for the live problem, once it lists it."""
    listed = {p["slug"]: p["check_count"] for p in client.get("/api/problems").json()}
    return listed.get(SLUG)


def wait_until_listed_with(client: httpx.Client, checks: int, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while listed_checks(client) != checks:
        assert time.monotonic() < deadline, f"the web server does not list {SLUG} with {checks} checks"
        time.sleep(0.2)


def graded_checks(client: httpx.Client) -> list[str]:
    created = submit(client, CORRECT, slug=SLUG)
    assert created.status_code == 202, created.text
    body = wait_for_verdict(client, created.json()["id"])
    assert body["status"] == "done", body
    return [check["id"] for check in body["report"]["checks"]]


def test_a_worker_grades_a_problem_added_and_then_changed_while_the_site_runs(
    cluster: Cluster, live_folder: Path
) -> None:
    with httpx.Client(base_url=cluster.base_url, timeout=30) as client:
        wait_until_listed_with(client, 3)
        assert "add_one.added_later" not in graded_checks(client)

        checks = live_folder / "checks.py"
        checks.write_text(checks.read_text() + ADDED_CHECK)
        wait_until_listed_with(client, 4)
        assert "add_one.added_later" in graded_checks(client)  # the worker's battery is the web's
