"""The JSON API (docs/web-contract.md). OpenAPI at /docs.

Routes are `async` and do their database work in one trip to the thread pool (app.deps.in_session), so the
session is closed before the response goes out: a client that reads slowly holds no pooled connection."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from starlette.concurrency import run_in_threadpool

from app import crud
from app.addresses import client_address
from app.deps import AddressRateDep, CatalogDep, LearnerDep, StateDep, in_session
from app.embed import Embed, embed
from app.grading import Submitter
from app.intake import accept_submission
from app.learning_paths import CatalogueFilter, catalogue, tracks_for
from app.progress import progress_by_problem
from app.schemas import (
    Attempt,
    CatalogueOut,
    ProblemDetail,
    ProblemSummary,
    SubmissionCreate,
    SubmissionCreated,
    SubmissionOut,
    attempt,
    submission_out,
)
from app.stopping import stop_submission
from grader import scratch_example

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
    return {**entry.public(), "statement": entry.problem.statement, "starter": entry.problem.starter,
            "helpers": entry.problem.helpers, "scratch": scratch_example(entry.problem)}


@router.get("/catalogue", response_model=CatalogueOut)
async def read_catalogue(state: StateDep, learner: LearnerDep) -> CatalogueOut:
    """The tracks and problems of the home page, each with this learner's progress (`paperlab list`)."""
    progress = await in_session(state, lambda session: progress_by_problem(session=session, learner_id=learner))
    shown = catalogue(catalog=state.catalog, tracks=tracks_for(state.settings.problems_dir), progress=progress,
                      chosen=CatalogueFilter())  # fmt: skip
    return CatalogueOut.model_validate(shown)


@router.post(
    "/problems/{slug}/submissions",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=SubmissionCreated,
    responses={
        404: {"description": "Unknown problem"},
        413: {"description": "Code over PAPERLAB_MAX_CODE_BYTES"},
        422: {"description": "Not a JSON object with a `code` string, or code that is not valid Unicode"},
        429: {
            "description": "A run is still being graded, a rate limit (per learner or per network address) is "
            "reached, or this address has its share of the queue waiting (see Retry-After)"
        },
        503: {"description": "Grading queue full or grading unavailable (see Retry-After)"},
    },
)
async def create_submission(
    slug: str,
    body: SubmissionCreate,
    request: Request,
    response: Response,
    state: StateDep,
    learner: LearnerDep,
    address_rate: AddressRateDep,
) -> SubmissionCreated:
    """Store the code and queue it for grading; follow its checks at `/api/submissions/{id}/events`."""
    entry = state.catalog.entry(slug)
    submitter = Submitter(learner_id=learner, address=client_address(request))
    submission = await in_session(
        state,
        lambda session: accept_submission(
            session=session,
            backend=state.backend,
            settings=state.settings,
            address_rate=address_rate,
            submitter=submitter,
            problem=entry.slug,
            code=body.code,
            scratch_runs=state.scratch_runs,
        ),
    )
    response.headers["Location"] = f"/api/submissions/{submission.id}"
    return SubmissionCreated(id=submission.id)


@router.get("/problems/{slug}/submissions", response_model=list[Attempt], responses=ERROR_RESPONSES)
async def list_my_submissions(slug: str, state: StateDep, learner: LearnerDep) -> list[Attempt]:
    """This learner's attempts at the problem, newest first."""
    entry = state.catalog.entry(slug)
    return await in_session(
        state,
        lambda session: [
            attempt(s) for s in crud.list_submissions(session=session, learner_id=learner, problem=entry.slug)
        ],
    )


@router.get("/submissions/{submission_id}", response_model=SubmissionOut, responses=ERROR_RESPONSES)
async def read_submission(submission_id: str, state: StateDep, learner: LearnerDep) -> SubmissionOut:
    return await in_session(
        state,
        lambda session: submission_out(
            crud.get_submission(session=session, submission_id=submission_id, learner_id=learner)
        ),
    )


@router.get("/submissions/{submission_id}/embed", response_model=Embed, responses=ERROR_RESPONSES)
async def read_submission_embed(submission_id: str, request: Request, state: StateDep, learner: LearnerDep) -> Embed:
    """The verdict as one self-contained HTML fragment (the notebook extension shows it): the page's summary and
    verdict list, and the notes' charts once solved."""
    submission = await in_session(
        state,
        lambda session: submission_out(
            crud.get_submission(session=session, submission_id=submission_id, learner_id=learner)
        ),
    )
    return embed(request, submission, state.catalog.entries.get(submission.problem))


@router.post(
    "/submissions/{submission_id}/stop",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=SubmissionOut,
    responses={
        404: {"description": "Unknown submission (or not yours)"},
        409: {"description": "Already graded: there is nothing to stop"},
        503: {"description": "The grading workers cannot be reached to stop it (see Retry-After)"},
    },
)
async def stop_grading(submission_id: str, state: StateDep, learner: LearnerDep) -> SubmissionOut:
    """Stop grading this submission now (the page's Stop button). Checks finished by then keep their verdicts,
    the others are reported "stopped by you" and the report says `stopped`; the submission stays stored. The
    report follows on `/api/submissions/{id}/events`; the answer is the submission as it is at this moment."""
    await run_in_threadpool(stop_submission, state, submission_id=submission_id, learner_id=learner)
    return await in_session(
        state,
        lambda session: submission_out(
            crud.get_submission(session=session, submission_id=submission_id, learner_id=learner)
        ),
    )
