"""The home page: tracks from problems/tracks.toml as learning paths (paragraph, problems in order,
prerequisites, the learner's progress per problem and per track), problems outside every track, and a filter
by tag, difficulty and search that the server applies (no JavaScript needed)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from app.solutions import REVEAL_AFTER_FAILED
from tests.app.app_support import CORRECT, PROBLEMS, WRONG, TestClient, run
from tests.app.conftest import Server

TRACKS = '''
[[tracks]]
slug = "arithmetic"
title = "Tensor arithmetic"
summary = "Add numbers to tensors without touching the caller's tensor, one small problem after another."
problems = ["add_one", "add_two", "not_written_yet"]

[tracks.prerequisites]
add_two = ["add_one"]
'''


@pytest.fixture
def home(make_server: Callable[..., Server], tmp_path: Path) -> Server:
    problems = tmp_path / "problems"
    shutil.copytree(PROBLEMS / "add_one", problems / "add_one")
    for slug, title, difficulty, tags in (("add_two", "Add two", "medium", '["arithmetic", "warm-up"]'),
                                          ("loose_end", "A loose end", "hard", '["misc"]')):  # fmt: skip
        shutil.copytree(PROBLEMS / "add_one", problems / slug)
        toml = (problems / slug / "problem.toml").read_text()
        toml = toml.replace('slug = "add_one"', f'slug = "{slug}"').replace('title = "Add one"', f'title = "{title}"')
        toml = toml.replace('difficulty = "easy"', f'difficulty = "{difficulty}"')
        toml = toml.replace('tags = ["fixture", "tensors"]', f"tags = {tags}")
        (problems / slug / "problem.toml").write_text(toml)
    (problems / "tracks.toml").write_text(TRACKS)
    return make_server(problems_dir=problems)


def cards(html: str) -> list[tuple[str, str]]:
    """(slug, progress label) of every problem card, in page order."""
    found = re.findall(r'<a href="/problems/([a-z_]+)">[^<]*</a></h3>\s*<span class="badge badge--state[^"]*">'
                       r'(?:<span aria-hidden="true">✓ </span>)?([^<]+)</span>', html)  # fmt: skip
    return [(slug, label.strip()) for slug, label in found]


def test_tracks_list_their_problems_in_order_then_the_others(home: Server) -> None:
    page = home.client.get("/")
    assert page.status_code == 200
    assert "Tensor arithmetic" in page.text and "without touching the caller" in page.text
    assert cards(page.text) == [("add_one", "Not started"), ("add_two", "Not started"), ("loose_end", "Not started")]
    assert "More problems" in page.text
    assert "not_written_yet" not in page.text, "a planned problem without a folder is not shown"
    assert "0 of 2 solved" in page.text


def test_prerequisites_are_named_on_the_card(home: Server) -> None:
    page = home.client.get("/").text
    card = page[page.index('href="/problems/add_two"'):]
    assert re.search(r'Builds on <a href="/problems/add_one">Add one</a>', card[: card.index("</li>")])


def test_progress_per_problem_and_per_track(home: Server) -> None:
    client = home.client
    assert client.post("/api/problems/add_two/submissions", json={"code": WRONG}).status_code == 202
    run_done(client)
    assert run(client, CORRECT)["report"]["solved"]  # add_one
    page = client.get("/").text
    assert cards(page)[:2] == [("add_one", "Solved"), ("add_two", "Attempted")]
    assert "1 of 2 solved" in page
    # The prerequisite shows as done on the next card.
    assert '(solved)' in page[page.index('href="/problems/add_two"'):]


def run_done(client: TestClient) -> None:
    from tests.app.app_support import wait_for_verdict

    [latest] = client.get("/api/problems/add_two/submissions").json()[:1]
    wait_for_verdict(client, latest["id"])


def test_a_solve_after_giving_up_is_marked(home: Server) -> None:
    client = home.client
    for _ in range(REVEAL_AFTER_FAILED):
        run(client, WRONG)
    assert client.post("/api/problems/add_one/solution/reveal").status_code == 200
    assert run(client, CORRECT)["report"]["solved"]
    page = client.get("/").text
    assert cards(page)[0] == ("add_one", "Solved after reveal")
    assert "1 of 2 solved" in page, "it still counts"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("tag=warm-up", ["add_two"], id="tag"),
        pytest.param("tag=WARM-UP", ["add_two"], id="tag-any-case"),
        pytest.param("difficulty=hard", ["loose_end"], id="difficulty"),
        pytest.param("q=loose", ["loose_end"], id="search-title"),
        pytest.param("q=return+x", ["add_one", "add_two", "loose_end"], id="search-summary-all-words"),
        pytest.param("q=misc", ["loose_end"], id="search-tags"),
        pytest.param("q=add&difficulty=easy", ["add_one"], id="combined"),
        pytest.param("q=nothing+like+this", [], id="no-match"),
    ],
)
def test_the_filter_is_applied_on_the_server(home: Server, query: str, expected: list[str]) -> None:
    page = home.client.get(f"/?{query}")
    assert page.status_code == 200
    assert [slug for slug, _ in cards(page.text)] == expected
    count = len(expected)
    assert f"{count} {'problem matches' if count == 1 else 'problems match'}." in page.text or not expected
    if not expected:
        assert "No problem matches" in page.text


def test_a_track_with_no_match_is_hidden_but_keeps_its_progress_otherwise(home: Server) -> None:
    assert "Tensor arithmetic" not in home.client.get("/?difficulty=hard").text
    assert "Tensor arithmetic" in home.client.get("/?difficulty=medium").text


def test_an_overlong_query_is_refused(home: Server) -> None:
    assert home.client.get("/?q=" + "x" * 201).status_code == 422


def test_without_a_tracks_file_every_problem_is_listed(client: TestClient) -> None:
    page = client.get("/")
    assert cards(page.text) == [("add_one", "Not started")]
    assert "More problems" not in page.text
