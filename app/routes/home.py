"""The home page: the catalogue as learning paths (app.learning_paths), server-rendered and filterable by query
string (?tag=&difficulty=&q=), so it works without JavaScript."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from starlette.responses import FileResponse, Response

from app.deps import CatalogDep, StateDep
from app.instructor.check_reports import unseen_replies
from app.learning_paths import CatalogueFilter, catalogue, tracks_for
from app.progress import progress_by_problem
from app.routes.pages import with_learner
from app.templating import render

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


@router.api_route("/", methods=["GET", "HEAD"])
async def index(
    request: Request, catalog: CatalogDep, state: StateDep, chosen: Annotated[CatalogueFilter, Query()]
) -> Response:
    progress, replies = await with_learner(
        state, request, lambda session, learner: (progress_by_problem(session=session, learner_id=learner),
                                                  unseen_replies(session=session, learner_id=learner)),
    )
    context = catalogue(
        catalog=catalog, tracks=tracks_for(state.settings.problems_dir), progress=progress, chosen=chosen
    )
    return render(request, "index.html", {**context, "unseen_replies": replies})


@router.get("/favicon.ico")
async def favicon(state: StateDep) -> Response:
    """Browsers ask every site for /favicon.ico whatever the page links; pages also link static/favicon.svg."""
    return FileResponse(state.settings.static_dir / "favicon.ico", media_type="image/x-icon",
                        headers={"Cache-Control": "public, max-age=86400"})
