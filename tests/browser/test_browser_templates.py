"""Every template renders with exactly the context docs/web-contract.md promises, under the server's own Jinja
environment (StrictUndefined, autoescape), and escapes what a submission sends. No browser needed, but it
lives with the pages' other tests."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import pytest
from jinja2 import Environment

from tests.browser.browser_support import REPO

pytestmark = pytest.mark.browser

HOSTILE = "</textarea><script>alert(1)</script>&amp;"
PROBLEM = {
    "slug": "moco",
    "title": "MoCo <b>",
    "summary": "Momentum contrast",
    "difficulty": "medium",
    "tags": ["contrastive", "PyTorch"],
    "functions": [{"name": "moco_loss", "signature": "moco_loss(query, key, queue, temperature)", "summary": "loss"}],
    "check_count": 3,
}
CHECKS = [
    {
        "id": "moco_loss.hand",
        "title": "Hand example",
        "group": "moco_loss",
        "required": True,
        "status": "passed",
        "message": "",
        "duration_ms": 1.5,
        "output": "",
    },
    {
        "id": "moco_loss.batch",
        "title": "Batch",
        "group": "moco_loss",
        "required": True,
        "status": "failed",
        "message": f"expected 0.31, got 0.54 {HOSTILE}",
        "duration_ms": 2.0,
        "output": HOSTILE,
    },
    {
        "id": "enqueue.wrap",
        "title": "Wraps",
        "group": "enqueue",
        "required": False,
        "status": "skipped",
        "message": "",
        "duration_ms": 0.0,
        "output": "",
    },
]
REPORT = {
    "problem": "moco", "solved": False, "status": "failed", "checks": CHECKS,
    "experiment": {"steps": [0, 1], "series": {"loss": [2.0, 1.0]}}, "limits": {}, "sandbox": "none",
    "duration_ms": 12.0, "error": {"kind": "load", "message": f"SyntaxError {HOSTILE}", "line": 7},
}  # fmt: skip
NOW = dt.datetime(2025, 11, 29, 16, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def environment() -> Environment:
    from app.templating import make_templates  # the server's own environment: StrictUndefined, autoescape

    return make_templates(REPO / "templates").env


def render(environment: Environment, name: str, **context: Any) -> str:
    return environment.get_template(name).render(unsafe_sandbox=False, request=None, **context)


HINTS = [
    {"index": 0, "unlocked": True, "text": HOSTILE, "unlocks_after": 1, "unlocked_by": "request"},
    {"index": 1, "unlocked": False, "text": None, "unlocks_after": 2, "unlocked_by": None},
]
PROBLEM_PAGE = {"problem": PROBLEM, "statement_html": "<p>S</p>", "starter_code": "pass\n", "hints": HINTS,
                "scratch_example": HOSTILE, "helpers_html": "<pre>def check(x): ...</pre>",
                "unseen_replies": 1}  # fmt: skip
ATTEMPTS: list[dict[str, object]] = [
    {"id": "a1", "created_at": NOW, "status": "done", "passed": 1, "total": 3, "solved": False},
    {
        "id": "a2",
        "created_at": NOW.isoformat(),
        "status": "queued",
        "passed": None,
        "total": None,
        "solved": False,
    },
]
DONE = {"id": "a1", "created_at": NOW, "status": "done", "code": HOSTILE, "report": REPORT}
PENDING = {"id": "a1", "created_at": NOW, "status": "running", "code": "", "report": None}
CARDS = [
    {**PROBLEM, "progress": progress, "progress_label": progress, "state": progress.split("_")[0],
     "search_text": HOSTILE, "needs": [{"slug": "moco", "title": "MoCo <b>", "solved": True}]}
    for progress in ("not_started", "attempted", "solved", "solved_after_reveal")
]  # fmt: skip
INDEX = {"tracks": [], "others": [], "filter": {"tag": "", "difficulty": "", "q": HOSTILE, "active": True},
         "matched": 0, "all_tags": ["a<b>"], "difficulties": ["easy", "medium", "hard"]}  # fmt: skip
PROFILE = {"display_name": HOSTILE, "student_id": ""}
REGRADE = {"old": "1/3", "new": "2/3", "submission_id": "a2", "solved_now": False, "still_solves": False,
           "no_longer_solves": False, "notes_unlocked": True}
ATTEMPT_EXTRAS = {"code_html": '<div class="highlight"><pre>x</pre></div>',
                  "regraded_from": {"id": "a0", "created_at": NOW},
                  "previous": {"id": "a0", "created_at": NOW.isoformat(), "changed_lines": 2,
                               "diff_html": '<div class="highlight"><pre>-x</pre></div>'}}  # fmt: skip
MY_REPORTS = [{"id": "r1", "check_id": "add_one.values", "text": HOSTILE, "status": status, "reply": reply,
               "submission_id": "a1", "problem": "moco", "problem_title": "MoCo <b>", "created_at": NOW,
               "resolved_at": NOW if status == "resolved" else None, "unseen_reply": status == "resolved"}
              for status, reply in (("resolved", HOSTILE), ("resolved", None), ("open", None))]  # fmt: skip
CHECK_REPORTS = [{"id": "r1", "check_id": "add_one.values", "text": HOSTILE, "status": "resolved", "reply": HOSTILE}]
CASES = [
    pytest.param(
        "index.html",
        {**INDEX, "tracks": [{"slug": "t", "title": "Track <b>", "summary": HOSTILE, "solved": 1, "total": 3,
                              "problems": [{**card, "step": n} for n, card in enumerate(CARDS, 1)]}],
         "others": CARDS},
        id="index",
    ),
    pytest.param("index.html", INDEX, id="index-empty"),
    pytest.param(
        "problem.html",
        {**PROBLEM_PAGE, "initial_code": HOSTILE, "solved": False, "last_submission_id": None},
        id="problem",
    ),
    pytest.param(
        "problem.html",
        {**PROBLEM_PAGE, "initial_code": "", "solved": True, "last_submission_id": "a"},
        id="problem-solved",
    ),
    pytest.param(
        "notes.html",
        {"problem": PROBLEM, "notes_html": "<p>N</p>", "experiment": REPORT["experiment"], "experiment_running": False},
        id="notes",
    ),
    pytest.param("notes.html", {"problem": PROBLEM, "notes_html": "", "experiment": None, "experiment_running": False},
                 id="notes-no-data"),
    pytest.param("notes.html", {"problem": PROBLEM, "notes_html": "", "experiment": None, "experiment_running": True},
                 id="notes-experiment-still-running"),
    pytest.param("locked.html", {"problem": PROBLEM}, id="locked"),
    pytest.param("history.html", {"problem": PROBLEM, "attempts": [{**a, "after_reveal": False} for a in ATTEMPTS],
                                  "reveal": None, "profile": PROFILE}, id="history"),
    pytest.param("history.html", {"problem": PROBLEM, "attempts": [{**a, "after_reveal": True} for a in ATTEMPTS],
                                  "reveal": {"failed_attempts": 3, "revealed_at": NOW}, "profile": PROFILE},
                 id="history-revealed"),
    pytest.param("history.html", {"problem": PROBLEM, "attempts": [], "reveal": None, "profile": PROFILE},
                 id="history-empty"),
    pytest.param("submission.html", {"problem": PROBLEM, "submission": DONE, "regrade": REGRADE,
                                     "check_reports": CHECK_REPORTS, **ATTEMPT_EXTRAS}, id="submission"),
    pytest.param("my_reports.html", {"reports": MY_REPORTS}, id="my-reports"),
    pytest.param("my_reports.html", {"reports": []}, id="my-reports-empty"),
    pytest.param("history.html", {"problem": PROBLEM, "profile": PROFILE, "reveal": None, "attempts": [
        {**ATTEMPTS[0], "after_reveal": False, "regrade_of": {"id": "a0", "created_at": NOW.isoformat()}}]},
        id="history-regraded"),
    pytest.param("submission.html", {"problem": PROBLEM, "submission": PENDING, "regrade": None,
                                     "check_reports": []}, id="submission-pending"),
    pytest.param("error.html", {"status_code": 404, "title": "Not found", "message": HOSTILE}, id="error"),
]


@pytest.mark.parametrize(("name", "context"), CASES)
def test_template_renders_the_contract_context_and_escapes(
    environment: Environment, name: str, context: dict[str, Any]
) -> None:
    html = render(environment, name, **context)
    assert '<link rel="stylesheet" href="/static/dist/app.css">' in html
    assert '<script type="module" src="/static/dist/app.js"></script>' in html
    assert "<script>alert(1)</script>" not in html
    assert "MoCo <b>" not in html
    # CSP script-src 'self': no inline script that would execute, no inline handlers.
    for script in re.findall(r"<script\b[^>]*>", html):
        assert 'src="/static/dist/app.js"' in script or 'type="application/json"' in script, script
    assert not re.search(r"\son[a-z]+=", html)


def test_problem_page_has_every_element_the_bundle_needs(environment: Environment) -> None:
    html = render(environment, "problem.html", problem=PROBLEM, statement_html="", initial_code="\nx = 1\n",
                  hints=HINTS, scratch_example="print(1)\n", helpers_html="",
                  starter_code="pass\n", solved=False, last_submission_id="sub-1", unseen_replies=0)  # fmt: skip
    for element_id in ("run-tests", "reset-code", "verdicts", "progress", "summary", "charts", "notes-link",
                       "problem-layout", "pane-tabs", "statement-panel", "results-panel", "workbench", "editor-mode",
                       "edit-status", "wrap-toggle", "failures-only", "run-outcome"):
        assert f'id="{element_id}"' in html
    assert re.search(r'<div id="editor"[^>]*data-slug="moco"[^>]*data-last-submission="sub-1"', html)
    # One announcement per run (a status region outside the list), never the list of checks itself.
    assert re.search(r'<p id="run-announcer"[^>]*role="status"', html)
    assert not re.search(r'<div id="verdicts"[^>]*aria-live', html)
    assert re.search(r'id="notes-link"[^>]*hidden', html)
    # One newline after <textarea> is dropped by the HTML parser, so the code's own leading newline survives.
    assert '<textarea id="initial-code" hidden aria-hidden="true">\n\nx = 1\n</textarea>' in html


def test_notes_embed_the_experiment_as_inert_json(environment: Environment) -> None:
    experiment = {"steps": [0], "series": {"loss": [1.0]}, "note": "</script><script>alert(1)</script>"}
    html = render(environment, "notes.html", problem=PROBLEM, notes_html="", experiment=experiment,
                  experiment_running=False)
    block = re.search(r'<script type="application/json" id="experiment-data">(.*?)</script>', html, re.S)
    assert block
    assert json.loads(block.group(1)) == experiment


def test_unsafe_sandbox_banner(environment: Environment) -> None:
    html = environment.get_template("index.html").render(unsafe_sandbox=True, request=None, **INDEX)
    assert "Submissions run WITHOUT a sandbox" in html
    assert "WITHOUT a sandbox" not in render(environment, "index.html", **INDEX)
