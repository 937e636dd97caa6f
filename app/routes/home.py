"""The home page: the catalogue as learning paths (app.learning_paths), server-rendered and filterable by query
string (?tag=&difficulty=&q=), so it works without JavaScript."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from app.deps import CatalogDep, StateDep
from app.learning_paths import CatalogueFilter, catalogue, tracks_for
from app.progress import progress_by_problem
from app.routes.pages import with_learner
from app.templating import render

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


@router.api_route("/", methods=["GET", "HEAD"])
async def index(
    request: Request, catalog: CatalogDep, state: StateDep, chosen: Annotated[CatalogueFilter, Query()]
) -> Response:
    progress = await with_learner(
        state, request, lambda session, learner: progress_by_problem(session=session, learner_id=learner)
    )
    context = catalogue(
        catalog=catalog, tracks=tracks_for(state.settings.problems_dir), progress=progress, chosen=chosen
    )
    return render(request, "index.html", context)
