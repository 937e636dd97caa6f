"""The JSON API (docs/web-contract.md). OpenAPI at /docs."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from app import crud
from app.deps import BackendDep, CatalogDep, LearnerDep, SessionDep, SettingsDep
from app.intake import accept_submission
from app.schemas import (
    Attempt,
    ProblemDetail,
    ProblemSummary,
    SubmissionCreate,
    SubmissionCreated,
    SubmissionOut,
    attempt,
    submission_out,
)

router = APIRouter(prefix="/api", tags=["api"])

ERROR_RESPONSES: dict[int | str, dict[str, str]] = {
    404: {"description": "Unknown problem or submission (or not yours)"},
}


@router.get("/problems", response_model=list[ProblemSummary])
async def list_problems(catalog: CatalogDep) -> list[dict[str, object]]:
    return [entry.public() for entry in catalog.entries.values()]


@router.get("/problems/{slug}", response_model=ProblemDetail, responses=ERROR_RESPONSES)
async def read_problem(slug: str, catalog: CatalogDep) -> dict[str, object]:
    entry = catalog.entry(slug)
    return {**entry.public(), "statement": entry.problem.statement, "starter": entry.problem.starter}


@router.post(
    "/problems/{slug}/submissions",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=SubmissionCreated,
    responses={
        404: {"description": "Unknown problem"},
        413: {"description": "Code over PAPERLAB_MAX_CODE_BYTES"},
        429: {"description": "A run is still being graded, or the rate limit is reached (see Retry-After)"},
        503: {"description": "Grading queue full or grading unavailable (see Retry-After)"},
    },
)
def create_submission(
    slug: str,
    body: SubmissionCreate,
    response: Response,
    catalog: CatalogDep,
    session: SessionDep,
    learner: LearnerDep,
    backend: BackendDep,
    settings: SettingsDep,
) -> SubmissionCreated:
    """Store the code and queue it for grading; follow its checks at `/api/submissions/{id}/events`."""
    entry = catalog.entry(slug)
    submission = accept_submission(
        session=session,
        backend=backend,
        settings=settings,
        learner_id=learner,
        problem=entry.slug,
        code=body.code,
    )
    response.headers["Location"] = f"/api/submissions/{submission.id}"
    return SubmissionCreated(id=submission.id)


@router.get("/problems/{slug}/submissions", response_model=list[Attempt], responses=ERROR_RESPONSES)
def list_my_submissions(slug: str, catalog: CatalogDep, session: SessionDep, learner: LearnerDep) -> list[Attempt]:
    """This learner's attempts at the problem, newest first."""
    entry = catalog.entry(slug)
    return [attempt(s) for s in crud.list_submissions(session=session, learner_id=learner, problem=entry.slug)]


@router.get("/submissions/{submission_id}", response_model=SubmissionOut, responses=ERROR_RESPONSES)
def read_submission(submission_id: str, session: SessionDep, learner: LearnerDep) -> SubmissionOut:
    return submission_out(crud.get_submission(session=session, submission_id=submission_id, learner_id=learner))
