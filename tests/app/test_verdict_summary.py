"""A finished run's summary sentence (app.verdict_summary) is the problem page's, word for word: the page's own
`describe()` (static/src/verdicts.js, run with Node) and the server's give the same text and tone for a table
of reports, so the `paperlab` command and the notebook say what the page says."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app.verdict_summary import NO_REPORT, format_duration, summarise
from grader import Report

ROOT = Path(__file__).resolve().parents[2]
# describe() reads, besides the report, `this.flipCount()` (the page's "changed since the previous attempt", which
# the API has no previous attempt for) and the pane's failing rows (none here: it then names the report's first
# failure, as the server does). Its text may be parts, a failing check as `{check}` (a link on the page): joined
# here with the check's title.
PAGE_DESCRIBE = """
import { VerdictPanel } from "./static/src/verdicts.js";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const reports = JSON.parse(input);
const page = { flipCount: () => 0, failingRows: () => [], results: new Map() };
const flat = (text) => Array.isArray(text) ? text.map((part) => typeof part === "string" ? part : part.check.title)
  .join("") : text;
console.log(JSON.stringify(reports.map((report) => {
  const [text, tone] = VerdictPanel.prototype.describe.call(page, report);
  return [flat(text), tone];
})));
"""


def check(check_id: str, status: str, *, required: bool = True, limit: str | None = None,
          title: str | None = None) -> dict[str, Any]:  # fmt: skip
    return {"id": check_id, "title": title or f"{check_id} works", "group": check_id.split(".")[0],
            "required": required, "status": status, "message": "", "duration_ms": 1.0, "output": "",
            "limit": limit, "diagnosis": None}  # fmt: skip


def report(checks: list[dict[str, Any]], *, solved: bool = False, status: str = "failed", duration_ms: float = 0,
           error: dict[str, Any] | None = None, stopped: bool = False) -> dict[str, Any]:  # fmt: skip
    return {"problem": "p", "solved": solved, "status": status, "checks": checks, "experiment": None, "limits": {},
            "sandbox": "bubblewrap", "duration_ms": duration_ms, "error": error, "stopped": stopped}  # fmt: skip


REPORTS = [
    pytest.param(report([check("f.a", "passed"), check("f.b", "passed")], solved=True, status="passed",
                        duration_ms=412.4), "Solved: all required checks pass, 2 / 2 in 412 ms.", id="solved"),
    pytest.param(report([check("f.a", "passed"), check("f.b", "failed", required=False)], solved=True,
                        status="passed", duration_ms=1234.5),
                 "Solved: all required checks pass (1 optional check still failing), 1 / 2 in 1.23 s.",
                 id="solved-with-an-optional-failure"),
    pytest.param(report([check("f.a", "passed"), check("f.b", "failed", title="B keeps its shape"),
                         check("f.c", "failed")], duration_ms=0.5),
                 "Not solved yet: 2 of 3 checks failing. Start with “B keeps its shape”.", id="failed"),
    pytest.param(report([check("f.a", "passed"), check("f.b", "skipped")], stopped=True),
                 "Stopped by you. 1 / 2 checks passed before the stop.", id="stopped"),
    pytest.param(report([], status="error", error={"kind": "load", "message": "SyntaxError", "line": 7}),
                 "Your code did not load (line 7), so no check could run. Fix the error below and run again.",
                 id="load-error-with-a-line"),
    pytest.param(report([check("f.a", "failed", limit="time"), check("f.b", "passed")]),
                 "Stopped by a resource limit. 1 / 2 checks passed.", id="a-check-hit-the-time-limit"),
    pytest.param(report([check("f.a", "failed", limit="crash")]),
                 "Not solved yet: 1 of 1 checks failing. Start with “f.a works”.", id="a-crash-is-no-resource-limit"),
    pytest.param(report([], status="error", error={"kind": "sandbox", "message": "no bwrap", "line": None}),
                 "The sandbox could not start, so your code was not run. Try again in a moment.", id="sandbox"),
    pytest.param(report([check("f.a", "error")], status="error"),
                 "The grader itself failed on some checks. That is not your fault; try again later.", id="grader"),
]


@pytest.mark.parametrize(("raw", "expected"), REPORTS)
def test_the_server_summarises_a_run_as_the_page_does(raw: dict[str, Any], expected: str) -> None:
    assert summarise(Report.model_validate(raw)).text == expected


def test_the_pages_describe_gives_the_same_text_and_tone_for_every_report() -> None:
    node = shutil.which("node")
    assert node, "Node is part of `make setup` (the front-end build); it runs the page's describe() here"
    reports = [param.values[0] for param in REPORTS]
    result = subprocess.run([node, "--input-type=module", "-e", PAGE_DESCRIBE], cwd=ROOT, input=json.dumps(reports),
                            capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    page = [tuple(pair) for pair in json.loads(result.stdout)]
    server = [(s.text, s.tone) for s in (summarise(Report.model_validate(r)) for r in reports)]
    assert server == page


def test_no_report_is_not_the_learners_fault() -> None:
    assert summarise(None).text == NO_REPORT and summarise(None).tone == "error"


@pytest.mark.parametrize(("ms", "text"), [(0.425, "0.42 ms"), (2.5, "3 ms"), (999.4, "999 ms"), (1500, "1.50 s")])
def test_durations_read_as_on_the_page(ms: float, text: str) -> None:
    assert format_duration(ms) == text
