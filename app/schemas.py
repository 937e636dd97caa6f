"""The JSON the API speaks (docs/web-contract.md), as pydantic models so /docs shows them."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.catalog import InvalidProblem
from app.models import Submission
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


def submission_out(submission: Submission) -> SubmissionOut:
    return SubmissionOut(
        id=submission.id,
        problem=submission.problem,
        status=submission.status,  # type: ignore[arg-type]  # the CHECK constraint holds it to Status
        created_at=submission.created_at,
        code=submission.code,
        report=Report.model_validate_json(submission.report) if submission.report else None,
    )


def attempt(submission: Submission) -> Attempt:
    return Attempt(
        id=submission.id,
        created_at=submission.created_at,
        status=submission.status,  # type: ignore[arg-type]
        passed=submission.checks_passed,
        total=submission.checks_total,
        solved=submission.solved,
    )


def as_json(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")
