""""Report this check": a learner flags a check their attempt failed (a confusing message, a check they think
is wrong), the instructor's inbox lists open reports beside the check's failure rate, and the instructor's
reply shows on the learner's attempt."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, status
from pydantic import BaseModel, Field
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import crud
from app.deps import LearnerDep, StateDep, in_session
from app.errors import AppError, NotFound, UnprocessableContent
from app.instructor.models import CheckReport, CheckRollup
from app.instructor.profile import profile_of
from app.models import utcnow
from app.schemas import submission_out

MAX_TEXT_CHARS = 1000
REPORTABLE = ("failed", "error")

router = APIRouter(prefix="/api", tags=["api"])


class AlreadyReported(AppError):
    status_code = 409
    title = "Already reported"


class CheckReportIn(BaseModel):
    check_id: str = Field(max_length=200)
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="What seems wrong, in a few words.")


class CheckReportOut(BaseModel):
    id: str
    check_id: str
    text: str
    status: str
    reply: str | None


def report_check(*, session: Session, learner_id: str, submission_id: str, body: CheckReportIn) -> CheckReport:
    submission = crud.get_submission(session=session, submission_id=submission_id, learner_id=learner_id)
    report = submission_out(submission).report
    failed = {check.id for check in report.checks if check.status in REPORTABLE} if report else set()
    if body.check_id not in failed:
        raise UnprocessableContent(f"Check '{body.check_id}' did not fail in this attempt; only a failed check "
                                   "can be reported.")
    row = CheckReport(submission_id=submission.id, learner_id=learner_id, problem=submission.problem,
                      check_id=body.check_id, text=body.text.strip())
    session.add(row)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise AlreadyReported(f"You already reported '{body.check_id}' on this attempt.") from None
    return row


def learner_reports(*, session: Session, submission_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(CheckReport).where(CheckReport.submission_id == submission_id).order_by(CheckReport.created_at))
    return [CheckReportOut.model_validate(row, from_attributes=True).model_dump() for row in rows]


class LearnerReportOut(CheckReportOut):
    """One of the learner's own reports, as their list of reports shows it."""

    submission_id: str
    problem: str
    created_at: datetime
    resolved_at: datetime | None
    unseen_reply: bool = Field(description="Answered, and the learner has not seen the reply yet.")


def reports_of_learner(*, session: Session, learner_id: str) -> list[LearnerReportOut]:
    """Every report this learner sent, newest first."""
    rows = session.scalars(
        select(CheckReport).where(CheckReport.learner_id == learner_id).order_by(CheckReport.created_at.desc()))
    return [
        LearnerReportOut(id=row.id, check_id=row.check_id, text=row.text, status=row.status, reply=row.reply,
                         submission_id=row.submission_id, problem=row.problem, created_at=row.created_at,
                         resolved_at=row.resolved_at, unseen_reply=_unseen(row))  # fmt: skip
        for row in rows
    ]


def _unseen(row: CheckReport) -> bool:
    return row.status == "resolved" and row.reply_seen_at is None


def unseen_replies(*, session: Session, learner_id: str) -> dict[str, int]:
    """problem -> how many answered reports of this learner's have a reply they have not seen."""
    rows = session.execute(
        select(CheckReport.problem, func.count())
        .where(CheckReport.learner_id == learner_id, CheckReport.status == "resolved",
               CheckReport.reply_seen_at.is_(None))
        .group_by(CheckReport.problem)
    ).all()
    return {problem: int(count) for problem, count in rows}


def mark_replies_seen(*, session: Session, learner_id: str, submission_id: str | None = None) -> int:
    """The learner has now seen the replies (of one attempt, or all): the badge stops counting them."""
    query = (
        update(CheckReport)
        .where(CheckReport.learner_id == learner_id, CheckReport.status == "resolved",
               CheckReport.reply_seen_at.is_(None))
        .values(reply_seen_at=utcnow())
    )
    if submission_id is not None:
        query = query.where(CheckReport.submission_id == submission_id)
    result = session.execute(query)
    session.commit()
    return int(getattr(result, "rowcount", 0) or 0)  # a CursorResult for an UPDATE


def inbox(*, session: Session, status_filter: str = "open") -> list[dict[str, Any]]:
    """Reports (oldest first), each with the share of attempts failing its check and the learner's name."""
    rows = session.execute(
        select(CheckReport, CheckRollup.failures, CheckRollup.attempts)
        .outerjoin(CheckRollup, (CheckRollup.problem == CheckReport.problem)
                   & (CheckRollup.check_id == CheckReport.check_id))
        .where(CheckReport.status == status_filter)
        .order_by(CheckReport.created_at)
    ).all()
    return [
        {
            "id": report.id, "submission_id": report.submission_id, "problem": report.problem,
            "check_id": report.check_id, "text": report.text, "status": report.status, "reply": report.reply,
            "created_at": report.created_at.isoformat(),
            "learner": profile_of(session=session, learner_id=report.learner_id)["display_name"] or None,
            "failure_rate": round(failures / attempts, 4) if attempts else None,
            "failed_attempts": failures or 0, "attempts": attempts or 0,
        }
        for report, failures, attempts in rows
    ]


def resolve(*, session: Session, report_id: str, reply: str) -> None:
    row = session.get(CheckReport, report_id)
    if row is None:
        raise NotFound(f"There is no report '{report_id}'.")
    row.status, row.reply, row.resolved_at = "resolved", reply.strip()[:MAX_TEXT_CHARS] or None, utcnow()
    session.commit()


@router.post("/submissions/{submission_id}/check-reports", status_code=status.HTTP_201_CREATED,
             response_model=CheckReportOut,
             responses={404: {"description": "No such submission of yours"},
                        409: {"description": "This check of this attempt is reported already"},
                        422: {"description": "The check did not fail in this attempt, or the text is empty or long"}})
async def create_check_report(submission_id: str, body: CheckReportIn, state: StateDep,
                              learner: LearnerDep) -> CheckReportOut:
    """Report a check this attempt failed; the instructor's reply shows on the attempt's page."""
    row = await in_session(state, lambda session: report_check(session=session, learner_id=learner,
                                                               submission_id=submission_id, body=body))
    return CheckReportOut.model_validate(row, from_attributes=True)


@router.get("/check-reports", response_model=list[LearnerReportOut])
async def my_check_reports(state: StateDep, learner: LearnerDep) -> list[LearnerReportOut]:
    """Every report this learner sent, newest first, with its state and the instructor's reply (reading them
    here does not mark the replies seen; the page /reports does)."""
    return await in_session(state, lambda session: reports_of_learner(session=session, learner_id=learner))


@router.get("/submissions/{submission_id}/check-reports", response_model=list[CheckReportOut])
async def list_check_reports(submission_id: str, state: StateDep, learner: LearnerDep) -> list[dict[str, Any]]:
    def load(session: Session) -> list[dict[str, Any]]:
        crud.get_submission(session=session, submission_id=submission_id, learner_id=learner)  # yours, or 404
        return learner_reports(session=session, submission_id=submission_id)

    return await in_session(state, load)
