"""Server-rendered pages (templates and their context: docs/web-contract.md).

Pages are `async`: each makes one trip to the thread pool for all its database work (the learner's identity
included) and renders on the event loop. A plain `def` page and its plain `def` dependencies made four trips,
and every trip waits for the GIL behind the grading threads while submissions are graded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app import crud
from app.attempts import attempt_extras
from app.deps import CatalogDep, StateDep, in_session, learner_for
from app.hints import hints_for
from app.instructor.check_reports import learner_reports, mark_replies_seen, unseen_replies
from app.instructor.profile import profile_of
from app.instructor.regrade import regrade_note, regrade_origins
from app.models import FINISHED
from app.progress import reveal_of
from app.schemas import as_json, attempt, submission_out
from app.state import AppState
from app.templating import render
from grader import scratch_example

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

T = TypeVar("T")


async def with_learner(state: AppState, request: Request, work: Callable[[Session, str], T]) -> T:
    """work(session, learner_id) in one trip to the thread pool."""
    learner = learner_for(request)
    return await in_session(state, lambda session: work(session, learner))


# The home page ("/") lives in app.routes.home: the catalogue as learning paths.


@router.api_route("/problems/{slug}", methods=["GET", "HEAD"])
async def problem_page(slug: str, request: Request, catalog: CatalogDep, state: StateDep) -> Response:
    entry = catalog.entry(slug)

    def load(session: Session, learner: str) -> dict[str, Any]:
        last = crud.last_submission(session=session, learner_id=learner, problem=entry.slug)
        return {
            "problem": entry.public(),
            "statement_html": entry.statement_html,
            "initial_code": last.code if last is not None else entry.problem.starter,
            "starter_code": entry.problem.starter,
            "helpers_html": entry.helpers_html,
            "solved": crud.has_solved(session=session, learner_id=learner, problem=entry.slug),
            "last_submission_id": last.id if last is not None else None,
            "hints": hints_for(session=session, learner_id=learner, problem=entry.problem),
            "scratch_example": scratch_example(entry.problem),
            "unseen_replies": unseen_replies(session=session, learner_id=learner).get(entry.slug, 0),
        }

    return render(request, "problem.html", await with_learner(state, request, load))


@router.get("/problems/{slug}/notes")
async def notes_page(slug: str, request: Request, catalog: CatalogDep, state: StateDep) -> Response:
    """The notes, only for a learner who solved the problem (checked here, on the server); else 403."""
    entry = catalog.entry(slug)

    def load(session: Session, learner: str) -> tuple[bool, dict[str, Any] | None, bool]:
        """(unlocked, the charts' data, whether the solving run's advisory checks, its experiment, still run)."""
        if not crud.has_solved(session=session, learner_id=learner, problem=entry.slug):
            return False, None, False
        solved = crud.latest_solved_submission(session=session, learner_id=learner, problem=entry.slug)
        report = submission_out(solved).report if solved is not None else None
        running = solved is not None and solved.status not in FINISHED  # told solved, its report still to come
        return True, report.experiment.model_dump(mode="json") if report and report.experiment else None, running

    unlocked, experiment, running = await with_learner(state, request, load)
    if not unlocked:
        return render(request, "locked.html", {"problem": entry.public()}, status_code=403)
    context = {"problem": entry.public(), "notes_html": entry.notes_html(), "experiment": experiment,
               "experiment_running": running}
    return render(request, "notes.html", context)


@router.get("/problems/{slug}/history")
async def history_page(slug: str, request: Request, catalog: CatalogDep, state: StateDep) -> Response:
    entry = catalog.entry(slug)
    def load(session: Session, learner: str) -> dict[str, Any]:
        submissions = crud.list_submissions(session=session, learner_id=learner, problem=entry.slug)
        reveal = reveal_of(session=session, learner_id=learner, problem=entry.slug)
        revealed = reveal.revealed_at if reveal is not None else None
        origins = regrade_origins(session=session, submission_ids=[s.id for s in submissions])
        return {
            "attempts": [
                {**as_json(attempt(s)), "after_reveal": revealed is not None and s.created_at >= revealed,
                 "regrade_of": {"id": origins[s.id].id, "created_at": origins[s.id].created_at.isoformat()}
                 if s.id in origins else None}  # fmt: skip
                for s in submissions
            ],
            "reveal": reveal,
            "profile": profile_of(session=session, learner_id=learner),
        }

    context = await with_learner(state, request, load)
    return render(request, "history.html", {"problem": entry.public(), **context})


@router.get("/submissions/{submission_id}")
async def submission_page(submission_id: str, request: Request, catalog: CatalogDep, state: StateDep) -> Response:
    def load(session: Session, learner: str) -> tuple[Any, ...]:
        submission = submission_out(crud.get_submission(session=session, submission_id=submission_id,
                                                        learner_id=learner))  # yours, or 404: before the rest
        reports = learner_reports(session=session, submission_id=submission_id)
        mark_replies_seen(session=session, learner_id=learner, submission_id=submission_id)  # read here
        return (submission, regrade_note(session=session, submission_id=submission_id), reports,
                attempt_extras(session=session, submission_id=submission_id))

    submission, regrade, check_reports, extras = await with_learner(state, request, load)
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
        "regrade": regrade,
        "check_reports": check_reports,
        **extras,
    }
    return render(request, "submission.html", context)
