"""Data access: keyword-only functions over a Session. Every read of a submission takes the learner and
answers NotFound for someone else's, so ownership cannot be forgotten at a call site."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.errors import NotFound
from app.models import IN_FLIGHT, Learner, Solved, Submission, utcnow

ProblemState = str  # "new" | "attempted" | "solved"


def ensure_learner(*, session: Session, learner_id: str) -> None:
    if session.get(Learner, learner_id) is not None:
        return
    session.add(Learner(id=learner_id))
    try:
        session.commit()
    except IntegrityError:  # a concurrent first request of the same learner created it
        session.rollback()


def create_submission(*, session: Session, learner_id: str, problem: str, code: str) -> Submission:
    """Stored as `queued`; raises IntegrityError when the learner already has one in flight."""
    submission = Submission(learner_id=learner_id, problem=problem, code=code, status="queued")
    session.add(submission)
    session.commit()
    return submission


def delete_submission(*, session: Session, submission_id: str) -> None:
    session.execute(delete(Submission).where(Submission.id == submission_id))
    session.commit()


def get_submission(*, session: Session, submission_id: str, learner_id: str) -> Submission:
    submission = session.get(Submission, submission_id)
    if submission is None or submission.learner_id != learner_id:
        raise NotFound(f"There is no submission '{submission_id}' of yours.")
    return submission


def in_flight_submission(*, session: Session, learner_id: str) -> Submission | None:
    return session.scalars(
        select(Submission)
        .where(Submission.learner_id == learner_id, Submission.status.in_(IN_FLIGHT))
        .limit(1)
    ).first()


def submission_times_since(*, session: Session, learner_id: str, since: datetime) -> list[datetime]:
    return list(
        session.scalars(
            select(Submission.created_at)
            .where(Submission.learner_id == learner_id, Submission.created_at > since)
            .order_by(Submission.created_at)
        )
    )


def list_submissions(*, session: Session, learner_id: str, problem: str) -> list[Submission]:
    """Newest first."""
    return list(
        session.scalars(
            select(Submission)
            .where(Submission.learner_id == learner_id, Submission.problem == problem)
            .order_by(Submission.created_at.desc())
        )
    )


def last_submission(*, session: Session, learner_id: str, problem: str) -> Submission | None:
    return session.scalars(
        select(Submission)
        .where(Submission.learner_id == learner_id, Submission.problem == problem)
        .order_by(Submission.created_at.desc())
        .limit(1)
    ).first()


def has_solved(*, session: Session, learner_id: str, problem: str) -> bool:
    return session.get(Solved, (learner_id, problem)) is not None


def latest_solved_submission(*, session: Session, learner_id: str, problem: str) -> Submission | None:
    return session.scalars(
        select(Submission)
        .where(
            Submission.learner_id == learner_id, Submission.problem == problem, Submission.solved.is_(True)
        )
        .order_by(Submission.created_at.desc())
        .limit(1)
    ).first()


def problem_states(*, session: Session, learner_id: str) -> dict[str, ProblemState]:
    """slug -> "attempted" | "solved" for every problem this learner has submitted to (absent: "new")."""
    states: dict[str, ProblemState] = {
        problem: "attempted"
        for problem in session.scalars(
            select(Submission.problem).where(Submission.learner_id == learner_id).group_by(Submission.problem)
        )
    }
    for problem in session.scalars(select(Solved.problem).where(Solved.learner_id == learner_id)):
        states[problem] = "solved"
    return states


def count_in_flight(*, session: Session) -> int:
    return session.scalar(select(func.count()).where(Submission.status.in_(IN_FLIGHT))) or 0


def one_minute_ago() -> datetime:
    return utcnow() - timedelta(minutes=1)
