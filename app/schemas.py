"""The JSON the API speaks (docs/web-contract.md), as pydantic models so /docs shows them."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.catalog import InvalidProblem
from app.models import FINISHED, Submission
from app.progress import ProblemProgress
from app.verdict_summary import Summary, summarise
from grader import Report

Difficulty = Literal["easy", "medium", "hard"]
Status = Literal["queued", "running", "done", "error"]


class FunctionOut(BaseModel):
    name: str
    signature: str
    summary: str


class ProblemSummary(BaseModel):
    slug: str
    title: str
    summary: str
    difficulty: Difficulty
    tags: list[str]
    functions: list[FunctionOut]
    check_count: int


class ProblemDetail(ProblemSummary):
    statement: str = Field(description="The statement's Markdown source.")
    starter: str = Field(description="The code the editor opens with.")
    helpers: str = Field(description="The problem's helpers.py, importable by a solution as the module `helpers` "
                         "(the supplied validation); empty when the problem has none.")
    scratch: str = Field(description="The \"Try it\" example script: it runs after the learner's code "
                         "(`POST /api/problems/{slug}/runs`).")


class ProblemProgressOut(BaseModel):
    slug: str
    title: str
    summary: str
    difficulty: Difficulty
    check_count: int
    progress: ProblemProgress
    progress_label: str = Field(description="`progress` in words, as the home page shows it.")


class TrackOut(BaseModel):
    slug: str
    title: str
    summary: str
    solved: int = Field(description="Problems of the track this learner has solved.")
    total: int
    problems: list[ProblemProgressOut] = Field(description="In the track's order.")


class CatalogueOut(BaseModel):
    """The home page's catalogue for this learner: the tracks in order, then the problems no track lists."""

    tracks: list[TrackOut]
    others: list[ProblemProgressOut]


class SubmissionCreate(BaseModel):
    code: str = Field(description="The learner's Python source.")


class SubmissionCreated(BaseModel):
    id: str
    status: Literal["queued"] = "queued"


class SubmissionOut(BaseModel):
    id: str
    problem: str
    status: Status
    created_at: datetime
    code: str
    report: Report | None
    summary: Summary | None = Field(
        default=None,
        description="Once finished: the run in one sentence, as the problem page's verdict panel says it "
        "(`tone`: passed, failed, error, limit or stopped).",
    )


class Attempt(BaseModel):
    id: str
    created_at: datetime
    status: Status
    passed: int | None
    total: int | None
    solved: bool


class Health(BaseModel):
    status: Literal["ok", "unavailable"]
    sandbox: str | None
    backend: str
    queue_depth: int
    queue_limit: int | None
    in_flight: int
    problems: int
    invalid_problems: list[InvalidProblem]  # folders that do not load: slug, file, line, message
    reason: str | None = None
    problems_prepared: int | None = None  # done ahead by this process's grading (grader.prepare); None: not here


def submission_out(submission: Submission) -> SubmissionOut:
    report = Report.model_validate_json(submission.report) if submission.report else None
    return SubmissionOut(
        id=submission.id,
        problem=submission.problem,
        status=submission.status,  # the CHECK constraint holds it to Status
        created_at=submission.created_at,
        code=submission.code,
        report=report,
        summary=summarise(report) if submission.status in FINISHED else None,
    )


def attempt(submission: Submission) -> Attempt:
    return Attempt(
        id=submission.id,
        created_at=submission.created_at,
        status=submission.status,
        passed=submission.checks_passed,
        total=submission.checks_total,
        solved=submission.solved,
    )


def as_json(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")
