""""Your reports": every check the learner reported, with its state and the instructor's reply. Opening the page
marks the replies seen, which clears the badge on the home and problem pages."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.deps import CatalogDep, StateDep
from app.instructor.check_reports import mark_replies_seen, reports_of_learner
from app.routes.pages import with_learner
from app.templating import render

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


@router.get("/reports")
async def my_reports_page(request: Request, catalog: CatalogDep, state: StateDep) -> Response:
    def load(session: Session, learner: str) -> list[dict[str, Any]]:
        reports = reports_of_learner(session=session, learner_id=learner)  # read before marking: keep "new"
        mark_replies_seen(session=session, learner_id=learner)
        return [report.model_dump() for report in reports]

    reports = await with_learner(state, request, load)
    titles = {slug: entry.public()["title"] for slug, entry in catalog.entries.items()}
    for report in reports:
        report["problem_title"] = titles.get(report["problem"], report["problem"])
    return render(request, "my_reports.html", {"reports": reports})
