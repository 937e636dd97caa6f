"""The learner's side beyond Run tests: progressive hints and the solution policy (JSON API and the solution
page). The rules live in app.hints and app.solutions; these routes only find the problem and the learner."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.addresses import client_address
from app.deps import CatalogDep, LearnerDep, StateDep, in_session
from app.hints import HintOut, HintUnlockRequest, hints_for, unlock_hint
from app.routes.pages import with_learner
from app.scratch import ScratchRequest, run_scratch
from app.solutions import SolutionOut, access_of, read_solution, reveal_solution
from app.templating import render
from grader import ScratchResult

router = APIRouter(prefix="/api", tags=["learning"])
pages_router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

NOT_FOUND: dict[int | str, dict[str, str]] = {404: {"description": "Unknown problem"}}
LOCKED: dict[int | str, dict[str, str]] = {
    **NOT_FOUND,
    403: {"description": "Not solved yet, and the learner has not given up (after 3 failed attempts)"},
}


@router.get("/problems/{slug}/hints", response_model=list[HintOut], responses=NOT_FOUND)
async def list_hints(slug: str, state: StateDep, learner: LearnerDep) -> list[HintOut]:
    """Every hint in order; the text only of those unlocked (by failed attempts, or on request)."""
    problem = state.catalog.entry(slug).problem
    return await in_session(state, lambda session: hints_for(session=session, learner_id=learner, problem=problem))


@router.post(
    "/problems/{slug}/hints/{index}/unlock",
    response_model=list[HintOut],
    responses={**NOT_FOUND, 409: {"description": "An earlier hint is still locked"}},
)
async def open_hint(
    slug: str, index: int, body: HintUnlockRequest, state: StateDep, learner: LearnerDep
) -> list[HintOut]:
    """Open hint `index` before the attempts unlock it (recorded). Returns every hint as now seen."""
    problem = state.catalog.entry(slug).problem
    return await in_session(
        state, lambda session: unlock_hint(session=session, learner_id=learner, problem=problem, index=index)
    )


@router.get("/problems/{slug}/solution", response_model=SolutionOut, responses=LOCKED)
async def get_solution(slug: str, state: StateDep, learner: LearnerDep) -> SolutionOut:
    problem = state.catalog.entry(slug).problem
    return await in_session(
        state, lambda session: read_solution(session=session, learner_id=learner, problem=problem)
    )


@router.post("/problems/{slug}/solution/reveal", response_model=SolutionOut, responses=LOCKED)
async def give_up_and_reveal(slug: str, state: StateDep, learner: LearnerDep) -> SolutionOut:
    """Give up after at least 3 failed attempts: recorded, shown on the attempts page; a later solve is
    marked "after reveal"."""
    problem = state.catalog.entry(slug).problem
    return await in_session(
        state, lambda session: reveal_solution(session=session, learner_id=learner, problem=problem)
    )


@router.post(
    "/problems/{slug}/runs",
    response_model=ScratchResult,
    responses={
        **NOT_FOUND,
        413: {"description": "Code and script together over PAPERLAB_MAX_CODE_BYTES"},
        429: {"description": "The learner's runs per minute (tests and scripts together), the address's, or a "
              "script of theirs still running (see Retry-After)"},
        503: {"description": "No sandbox can run it: grading is unavailable, or on Celery no worker ran it within its "
              "wait (see Retry-After)"},
    },
)
async def scratch_run(
    slug: str, body: ScratchRequest, request: Request, state: StateDep, learner: LearnerDep
) -> ScratchResult:
    """"Try it": run the learner's script after their functions, in the sandbox under the problem's limits.
    No verdict and no attempt; answers when the script has finished (200)."""
    problem = state.catalog.entry(slug).problem
    address = client_address(request)
    return await in_session(
        state,
        lambda session: run_scratch(
            state=state, session=session, learner_id=learner, address=address, problem=problem, body=body
        ),
    )


@pages_router.get("/problems/{slug}/solution")
async def solution_page(slug: str, request: Request, catalog: CatalogDep, state: StateDep) -> Response:
    entry = catalog.entry(slug)

    def load(session: Session, learner: str) -> dict[str, object]:
        access = access_of(session=session, learner_id=learner, problem=entry.problem)
        solution = None
        if access.readable:
            solution = read_solution(session=session, learner_id=learner, problem=entry.problem)
        return {"problem": entry.public(), "access": access, "solution": solution}

    context = await with_learner(state, request, load)
    return render(request, "solution.html", context, status_code=200 if context["solution"] else 403)


@pages_router.post("/problems/{slug}/solution/reveal")
async def reveal_from_page(slug: str, request: Request, catalog: CatalogDep, state: StateDep) -> Response:
    """The page's "give up" form (works without JavaScript): reveal, then show the solution page."""
    entry = catalog.entry(slug)
    await with_learner(
        state,
        request,
        lambda session, learner: reveal_solution(session=session, learner_id=learner, problem=entry.problem),
    )
    return RedirectResponse(f"/problems/{entry.slug}/solution", status_code=303)
