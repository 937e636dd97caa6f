"""Server-rendered pages (templates and their context: docs/web-contract.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from app import crud
from app.deps import CatalogDep, LearnerDep, SessionDep
from app.schemas import as_json, attempt, submission_out
from app.templating import render

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


@router.api_route("/", methods=["GET", "HEAD"])
def index(request: Request, catalog: CatalogDep, session: SessionDep, learner: LearnerDep) -> Response:
    states = crud.problem_states(session=session, learner_id=learner)
    problems = [{**entry.public(), "state": states.get(entry.slug, "new")} for entry in catalog.entries.values()]
    return render(request, "index.html", {"problems": problems})


@router.api_route("/problems/{slug}", methods=["GET", "HEAD"])
def problem_page(
    slug: str, request: Request, catalog: CatalogDep, session: SessionDep, learner: LearnerDep
) -> Response:
    entry = catalog.entry(slug)
    last = crud.last_submission(session=session, learner_id=learner, problem=entry.slug)
    context = {
        "problem": entry.public(),
        "statement_html": entry.statement_html,
        "initial_code": last.code if last is not None else entry.problem.starter,
        "starter_code": entry.problem.starter,
        "solved": crud.has_solved(session=session, learner_id=learner, problem=entry.slug),
        "last_submission_id": last.id if last is not None else None,
    }
    return render(request, "problem.html", context)


@router.get("/problems/{slug}/notes")
def notes_page(slug: str, request: Request, catalog: CatalogDep, session: SessionDep, learner: LearnerDep) -> Response:
    """The notes, only for a learner who solved the problem (checked here, on the server); else 403."""
    entry = catalog.entry(slug)
    if not crud.has_solved(session=session, learner_id=learner, problem=entry.slug):
        return render(request, "locked.html", {"problem": entry.public()}, status_code=403)
    solved = crud.latest_solved_submission(session=session, learner_id=learner, problem=entry.slug)
    report = submission_out(solved).report if solved is not None else None
    experiment = report.experiment.model_dump(mode="json") if report and report.experiment else None
    context = {"problem": entry.public(), "notes_html": entry.notes_html(), "experiment": experiment}
    return render(request, "notes.html", context)


@router.get("/problems/{slug}/history")
def history_page(
    slug: str, request: Request, catalog: CatalogDep, session: SessionDep, learner: LearnerDep
) -> Response:
    entry = catalog.entry(slug)
    attempts = [
        as_json(attempt(s)) for s in crud.list_submissions(session=session, learner_id=learner, problem=entry.slug)
    ]
    return render(request, "history.html", {"problem": entry.public(), "attempts": attempts})


@router.get("/submissions/{submission_id}")
def submission_page(
    submission_id: str, request: Request, catalog: CatalogDep, session: SessionDep, learner: LearnerDep
) -> Response:
    submission = submission_out(crud.get_submission(session=session, submission_id=submission_id, learner_id=learner))
    problem = (
        catalog.entries[submission.problem].public()
        if submission.problem in catalog.entries
        else {
            "slug": submission.problem,
            "title": submission.problem,
            "summary": "",
            "difficulty": "easy",
            "tags": [],
            "functions": [],
            "check_count": 0,
        }
    )
    context = {
        "problem": problem,
        "submission": {
            "id": submission.id,
            "created_at": submission.created_at.isoformat(),
            "status": submission.status,
            "code": submission.code,
            "report": submission.report.model_dump(mode="json") if submission.report else None,
        },
    }
    return render(request, "submission.html", context)
