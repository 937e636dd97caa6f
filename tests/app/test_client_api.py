"""What the `paperlab` command and the notebook extension read beyond the page's API: the catalogue with this
learner's progress, a problem's "Try it" script, and a finished verdict as one self-contained HTML fragment (the
attempt page's verdict list, and the notes' charts once solved)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from app.embed import chart_names
from tests.app.app_support import CORRECT, PROBLEMS, WRONG, TestClient, run
from tests.app.conftest import Server


def test_the_catalogue_gives_each_problem_with_this_learners_progress(client: TestClient) -> None:
    before = client.get("/api/catalogue").json()
    assert before["tracks"] == []  # the fixture folder has no tracks.toml
    assert [(p["slug"], p["progress"], p["check_count"]) for p in before["others"]] == [("add_one", "not_started", 3)]
    run(client, WRONG)
    assert client.get("/api/catalogue").json()["others"][0]["progress"] == "attempted"
    run(client, CORRECT)
    after = client.get("/api/catalogue").json()["others"][0]
    assert (after["progress"], after["progress_label"]) == ("solved", "Solved")


def test_the_catalogue_follows_the_tracks_in_order(make_server: Callable[..., Server], tmp_path: Path) -> None:
    problems = tmp_path / "problems"
    shutil.copytree(PROBLEMS, problems)
    (problems / "tracks.toml").write_text(
        '[[tracks]]\nslug = "basics"\ntitle = "Basics"\nproblems = ["add_one"]\n'
        'summary = "Warm up with one function that adds one to every element."\n'
    )
    body = make_server(problems_dir=problems).client.get("/api/catalogue").json()
    assert [(t["slug"], t["solved"], t["total"], [p["slug"] for p in t["problems"]]) for t in body["tracks"]] == [
        ("basics", 0, 1, ["add_one"])
    ]
    assert body["others"] == []


def test_an_embed_of_a_failed_run_shows_the_pages_summary_and_each_checks_message(client: TestClient) -> None:
    done = run(client, WRONG)
    html = client.get(f"/api/submissions/{done['id']}/embed").json()["html"]
    assert html.startswith('<div class="paperlab-verdict"') and "<style>" in html and "<script" not in html
    assert done["summary"]["text"].startswith("Not solved yet") and _escaped(done["summary"]["text"]) in html
    assert 'class="summary summary--failed"' in html
    failing = next(c for c in done["report"]["checks"] if c["status"] == "failed")
    assert f'data-check-id="{failing["id"]}"' in html and "expected" in failing["message"]
    assert _escaped(failing["message"]) in html
    assert "<svg" not in html and "/notes" not in html  # charts and the notes only once solved


def test_an_embed_of_a_solved_run_draws_the_experiment_and_links_the_notes(client: TestClient) -> None:
    done = run(client, CORRECT)
    html = client.get(f"/api/submissions/{done['id']}/embed").json()["html"]
    assert 'class="summary summary--passed"' in html and "Solved: all required checks pass" in html
    series = done["report"]["experiment"]["series"]
    assert html.count("<svg") == len(series) >= 1
    assert all(f'data-series="{name}"' in html for name in series)
    assert 'href="http://testserver/problems/add_one/notes"' in html


def test_an_embed_escapes_what_the_code_printed(client: TestClient) -> None:
    printing = CORRECT.replace("return x + 1", "print('<img src=x onerror=alert(1)>')\n    return x + 2")
    done = run(client, printing)
    html = client.get(f"/api/submissions/{done['id']}/embed").json()["html"]
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_an_embed_of_someone_elses_submission_is_not_found(server: Server) -> None:
    done = run(server.client, WRONG)
    assert server.learner().get(f"/api/submissions/{done['id']}/embed").status_code == 404


def test_the_notes_name_the_charts_they_place() -> None:
    notes = 'Intro\n<div class="chart" data-series="loss"></div>\n<div class="chart" data-series="pointer"></div>\n'
    assert chart_names(notes + '<div class="chart" data-series="loss"></div>') == ["loss", "pointer"]


def _escaped(text: str) -> str:
    return re.sub(r"[&<>\"']", lambda m: {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"}[
        m.group()], text)
