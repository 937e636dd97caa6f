"""How a new submission is admitted: size limit, per-learner rate limit, one in flight per learner, stored
before it is graded, then handed to the grading backend. A submission the backend refuses (queue full, grading
down) is removed again: the 503 means "not accepted", and the page still has the code."""

from __future__ import annotations

import math

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import crud
from app.errors import PayloadTooLarge, TooManyRequests
from app.grading import GradingBackend
from app.grading.base import SubmissionKept
from app.models import Submission, utcnow
from app.settings import Settings

# What to suggest when a learner already has a submission being graded: most verdicts take about a second.
IN_FLIGHT_RETRY_AFTER_S = 2


def accept_submission(
    *,
    session: Session,
    backend: GradingBackend,
    settings: Settings,
    learner_id: str,
    problem: str,
    code: str,
) -> Submission:
    check_code_size(code, limit=settings.max_code_bytes)
    check_rate_limit(session=session, learner_id=learner_id, per_minute=settings.rate_limit_per_minute)
    check_nothing_in_flight(session=session, learner_id=learner_id)
    try:
        submission = crud.create_submission(
            session=session, learner_id=learner_id, problem=problem, code=code
        )
    except IntegrityError:  # another request of this learner got its submission in first
        session.rollback()
        raise _in_flight_error() from None
    try:
        backend.submit(submission.id)
    except SubmissionKept:
        raise  # stored and queued: enqueued by the sweeper once the broker is back
    except Exception:
        crud.delete_submission(session=session, submission_id=submission.id)
        raise
    return submission


def check_code_size(code: str, *, limit: int) -> None:
    size = len(code.encode("utf-8"))
    if size > limit:
        raise PayloadTooLarge(
            f"Your code is {size:,} bytes; submissions may be at most {limit:,} bytes. "
            "Remove large data or generated text from it and run it again."
        )


def check_rate_limit(*, session: Session, learner_id: str, per_minute: int) -> None:
    recent = crud.submission_times_since(session=session, learner_id=learner_id, since=crud.one_minute_ago())
    if len(recent) < per_minute:
        return
    # The window frees a slot when the oldest submission inside it turns a minute old.
    oldest = recent[len(recent) - per_minute]
    wait = max(1, math.ceil(60 - (utcnow() - oldest).total_seconds()))
    raise TooManyRequests(
        f"You can run your code at most {per_minute} times a minute; try again in {wait} seconds.",
        retry_after=wait,
    )


def check_nothing_in_flight(*, session: Session, learner_id: str) -> None:
    if crud.in_flight_submission(session=session, learner_id=learner_id) is not None:
        raise _in_flight_error()


def _in_flight_error() -> TooManyRequests:
    return TooManyRequests(
        "Your previous run is still being graded; wait for its verdict, then run again.",
        retry_after=IN_FLIGHT_RETRY_AFTER_S,
    )
