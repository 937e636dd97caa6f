"""The author banner's self-test: in author mode `GET /api/author/selftest/SLUG` answers at once with the latest
result of `python -m grader selftest` for that folder (sound or not, the clause x check table, the mutants
caught and not), runs it in the background (never while a page waits), shows that a run is under way, and runs
it again once the folder's files have been quiet for a moment after a change. Without author mode the route
does not exist."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.author_selftest import AuthorSelftests, selftest_command
from grader.scaffold import create_problem
from tests.app.conftest import Server

SELFTEST_DEADLINE_S = 180.0  # a scaffolded problem takes seconds; a loaded CI machine many more


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    problems_dir = tmp_path / "problems"
    create_problem("adder", problems_dir)
    return problems_dir


def make_unsound(folder: Path) -> None:
    """A 'mutant' that is the reference itself: no check can catch it, so the battery is not sound."""
    reference = (folder / "reference.py").read_text()
    mutant = folder / "mutants" / "same_as_reference.py"
    mutant.write_text('"""Is the reference; nothing catches it."""\n' + reference)


def wait_for(fetch: Callable[[], dict[str, Any]], condition: Callable[[dict[str, Any]], bool],
             within_s: float = SELFTEST_DEADLINE_S) -> dict[str, Any]:
    deadline = time.monotonic() + within_s
    while True:
        status = fetch()
        if condition(status):
            return status
        assert time.monotonic() < deadline, f"not reached within {within_s} s: {status}"
        time.sleep(0.2)


def finished(status: dict[str, Any]) -> bool:
    return status["result"] is not None and not status["running"] and not status["queued"]


# --------------------------------------------------------------------------------------- the endpoint


@pytest.fixture
def author_server(make_server: Callable[..., Server], problems: Path, sandbox_available: bool) -> Server:
    return make_server(problems_dir=problems, author_mode=True, problems_reload_s=0,
                       unsafe_no_sandbox=not sandbox_available)


def selftest_of(server: Server, slug: str = "adder") -> dict[str, Any]:
    response = server.client.get(f"/api/author/selftest/{slug}")
    assert response.status_code == 200, response.text
    summary: dict[str, Any] = response.json()
    return summary


def test_without_author_mode_the_endpoint_does_not_exist(make_server: Callable[..., Server], problems: Path) -> None:
    server = make_server(problems_dir=problems, problems_reload_s=0)
    assert server.client.get("/api/author/selftest/adder").status_code == 404


def test_an_unknown_folder_is_not_found(author_server: Server) -> None:
    assert author_server.client.get("/api/author/selftest/nothing-here").status_code == 404


def test_the_first_ask_answers_at_once_with_a_run_under_way(author_server: Server) -> None:
    started = time.monotonic()
    status = selftest_of(author_server)
    assert time.monotonic() - started < 2.0  # the self-test itself takes far longer: it is not awaited
    assert status["result"] is None and (status["running"] or status["queued"])


def test_a_sound_problem_is_reported_sound_with_its_tables(author_server: Server) -> None:
    status = wait_for(lambda: selftest_of(author_server), finished)
    result = status["result"]
    assert status["error"] is None and status["finished_at"]
    assert result["sound"] is True and result["failures"] == []
    assert result["clauses"] and all(clause["required"] for clause in result["clauses"])
    assert result["mutants"] and all(mutant["caught"] and mutant["caught_by"] for mutant in result["mutants"])


def test_an_unsound_problem_is_reported_with_the_mutant_nothing_caught(author_server: Server, problems: Path) -> None:
    make_unsound(problems / "adder")
    result = wait_for(lambda: selftest_of(author_server), finished)["result"]
    assert result["sound"] is False
    (uncaught,) = [mutant for mutant in result["mutants"] if not mutant["caught"]]
    assert uncaught["name"] == "same_as_reference.py" and uncaught["caught_by"] is None
    assert any("same_as_reference.py" in failure for failure in result["failures"])


def test_the_problem_page_carries_the_banner_that_asks_for_it(author_server: Server) -> None:
    page = author_server.client.get("/problems/adder").text
    assert 'id="author-banner"' in page and 'data-selftest-url="/api/author/selftest/adder"' in page


# ------------------------------------------------------------------------------------------ scheduling


FAKE_SELFTEST = """
import json, sys, time
from pathlib import Path
folder = Path(sys.argv[1])
time.sleep(float((folder / "delay").read_text()))
(folder.parent / "runs.log").open("a").write("run\\n")
print("some noise first")
print(json.dumps({"problems": [{"slug": folder.name, "sound": (folder / "sound").read_text() == "yes"}],
                  "text": "report"}))
"""


@pytest.fixture
def fake_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "problems" / "fake"
    folder.mkdir(parents=True)
    (folder / "delay").write_text("0.5")
    (folder / "sound").write_text("yes")
    return folder


@pytest.fixture
def fake_selftests(fake_folder: Path, tmp_path: Path) -> Iterator[AuthorSelftests]:
    script = tmp_path / "fake_selftest.py"
    script.write_text(FAKE_SELFTEST)
    selftests = AuthorSelftests(fake_folder.parent, lambda folder: [sys.executable, str(script), str(folder)],
                                debounce_s=0.6, poll_s=0.05)
    selftests.start()
    yield selftests
    selftests.stop()


def runs(fake_folder: Path) -> int:
    log = fake_folder.parent / "runs.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def save(path: Path, text: str) -> None:
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))  # a change even within the clock's resolution


def test_a_run_shows_as_running_then_its_result_and_time(fake_selftests: AuthorSelftests) -> None:
    wait_for(lambda: fake_selftests.status("fake"), lambda s: s["running"], within_s=10)
    status = wait_for(lambda: fake_selftests.status("fake"), finished, within_s=10)
    assert status["result"] == {"slug": "fake", "sound": True} and status["text"] == "report"
    assert status["finished_at"].endswith("Z") and status["runs"] == 1


def test_a_burst_of_saves_reruns_once_after_the_folder_is_quiet(fake_selftests: AuthorSelftests,
                                                                fake_folder: Path) -> None:
    wait_for(lambda: fake_selftests.status("fake"), finished, within_s=10)
    for _ in range(4):  # an editor saving several times within the debounce time
        save(fake_folder / "sound", "no")
        time.sleep(0.1)
    status = wait_for(lambda: fake_selftests.status("fake"), lambda s: finished(s) and s["runs"] == 2, within_s=10)
    assert status["result"]["sound"] is False
    time.sleep(1.0)
    assert runs(fake_folder) == 2


def test_a_save_during_a_run_makes_another_run(fake_selftests: AuthorSelftests, fake_folder: Path) -> None:
    (fake_folder / "delay").write_text("1.5")
    wait_for(lambda: fake_selftests.status("fake"), lambda s: s["running"], within_s=10)
    save(fake_folder / "sound", "no")  # the run under way read "yes"
    status = wait_for(lambda: fake_selftests.status("fake"), lambda s: finished(s) and s["runs"] == 2, within_s=15)
    assert status["result"]["sound"] is False


def test_a_run_without_a_verdict_is_an_error_and_keeps_the_last_result(fake_selftests: AuthorSelftests,
                                                                       fake_folder: Path) -> None:
    wait_for(lambda: fake_selftests.status("fake"), finished, within_s=10)
    save(fake_folder / "delay", "not a number")  # the fake self-test now crashes
    status = wait_for(lambda: fake_selftests.status("fake"), lambda s: s["error"] is not None, within_s=10)
    assert "without a verdict" in status["error"] and "ValueError" in status["error"]
    assert status["result"] == {"slug": "fake", "sound": True}


@pytest.mark.parametrize("unsafe", [True, False])
def test_the_command_is_the_graders_selftest_in_json(unsafe: bool) -> None:
    command = selftest_command(unsafe=unsafe)(Path("/x/adder"))
    start = command.index(sys.executable)
    assert command[start + 1:start + 6] == ["-m", "grader", "selftest", "/x/adder", "--json"]
    assert ("--unsafe-no-sandbox" in command) is unsafe
