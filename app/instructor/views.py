"""What the instructor's pages show about one learner and one submission (data access for app.instructor.routes).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts import attempt_extras
from app.catalog import ProblemCatalog
from app.errors import NotFound
from app.instructor.check_reports import learner_reports
from app.instructor.models import LearnerProfile, Verdict
from app.instructor.regrade import regrade_note
from app.models import Learner, Solved, Submission
from app.schemas import submission_out

UNKNOWN_PROBLEM = {"summary": "", "difficulty": "easy", "tags": [], "functions": [], "check_count": 0}


def learner_attempts(*, session: Session, learner_id: str) -> dict[str, Any] | None:
    """The learner's profile, what they solved, and every attempt (newest first), or None for no such learner."""
    learner = session.get(Learner, learner_id)
    if learner is None:
        return None
    profile = session.get(LearnerProfile, learner_id)
    solved = {row.problem: row.solved_at.isoformat() for row in session.scalars(
        select(Solved).where(Solved.learner_id == learner_id))}
    rows = session.execute(
        select(Submission.id, Submission.problem, Submission.created_at, Submission.status,
               Submission.checks_passed, Submission.checks_total, Submission.solved, Verdict.regrade)
        .outerjoin(Verdict, Verdict.submission_id == Submission.id)
        .where(Submission.learner_id == learner_id)
        .order_by(Submission.created_at.desc())
    ).all()
    return {
        "learner": {
            "id": learner_id,
            "display_name": profile.display_name if profile else None,
            "student_id": profile.student_id if profile else None,
            "created_at": learner.created_at.isoformat(),
        },
        "solved": solved,
        "attempts": [
            {"id": row.id, "problem": row.problem, "created_at": row.created_at.isoformat(), "status": row.status,
             "passed": row.checks_passed, "total": row.checks_total, "solved": row.solved,
             "regrade": bool(row.regrade)}
            for row in rows
        ],
    }


def submission_context(*, session: Session, submission_id: str, catalog: ProblemCatalog) -> dict[str, Any]:
    """submission.html's context (as app.routes.pages builds it for the learner), for any learner's attempt."""
    row = session.get(Submission, submission_id)
    if row is None:
        raise NotFound(f"There is no submission '{submission_id}'.")
    submission = submission_out(row)
    entry = catalog.entries.get(submission.problem)
    problem = entry.public() if entry else {"slug": submission.problem, "title": submission.problem, **UNKNOWN_PROBLEM}
    return {
        "problem": problem,
        "submission": {
            "id": submission.id,
            "created_at": submission.created_at.isoformat(),
            "status": submission.status,
            "code": submission.code,
            "report": submission.report.model_dump(mode="json") if submission.report else None,
        },
        "regrade": regrade_note(session=session, submission_id=submission_id),
        "check_reports": learner_reports(session=session, submission_id=submission_id),
        **attempt_extras(session=session, submission_id=submission_id),
    }
