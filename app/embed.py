"""A finished submission's verdict as one self-contained HTML fragment, for the notebook extension
(`GET /api/submissions/{id}/embed`): the page's summary sentence, its notices, the verdict list the attempt page
renders (`verdict_list` in templates/_macros.html, the markup of static/src/verdicts.js), and, once the problem
is solved, the charts the notes draw (as SVG: a notebook's output runs no script of ours). Its styles are
inline and scoped to `.paperlab-verdict`, so it looks the same in Jupyter, VS Code or Colab and restyles nothing
around it. Everything from the submission is escaped by the template."""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup
from pydantic import BaseModel
from starlette.requests import Request

from app.catalog import CatalogEntry
from app.experiment_svg import charts
from app.schemas import SubmissionOut
from app.templating import render_fragment
from app.verdict_summary import RESOURCE_LIMITS, summarise

# The notes place a chart with <div class="chart" data-series="NAME"></div> (docs/authoring.md).
CHART_PLACEHOLDER = re.compile(r'<div class="chart" data-series="([^"<>]+)"></div>')


class Embed(BaseModel):
    html: str


def chart_names(notes: str) -> list[str]:
    return list(dict.fromkeys(CHART_PLACEHOLDER.findall(notes)))


def embed(request: Request, submission: SubmissionOut, entry: CatalogEntry | None) -> Embed:
    report = submission.report
    base = str(request.base_url).rstrip("/")
    drawn: list[Markup] = []
    if report is not None and report.solved and report.experiment is not None:
        drawn = charts(report.experiment, chart_names(entry.problem.notes) if entry is not None else ())
    context: dict[str, Any] = {
        "title": entry.problem.spec.title if entry is not None else submission.problem,
        "submission": submission,
        "report": report.model_dump(mode="json") if report is not None else None,
        "summary": summarise(report) if submission.status in ("done", "error") else None,
        "limit_message": _limit_message(submission),
        "charts": drawn,
        "attempt_url": f"{base}/submissions/{submission.id}",
        "notes_url": f"{base}/problems/{submission.problem}/notes",
    }
    return Embed(html=render_fragment(request, "_verdict_embed.html", context))


def _limit_message(submission: SubmissionOut) -> str | None:
    """The limit notice's message, as the page chooses it: the load's, else the first check that hit a limit."""
    report = submission.report
    if report is None:
        return None
    if report.error is not None and report.error.kind == "limit":
        return report.error.message
    hit = next((check for check in report.checks if check.limit in RESOURCE_LIMITS), None)
    return hit.message if hit is not None else None
