"""Which learners have earned trust ("established"), in one place.

The limits per network address exist against one thing: a flood from identities that cost nothing, a fresh
cookie per request. They also hit a class: thirty learners behind one NAT address pressing Run together are
not a flood. So the per-address caps (submissions a minute, submissions waiting, "Try it" runs) count only
learners who are not established yet; an established learner is bounded as a learner (one run in flight, the
per-learner rate) and the fair queue gives each learner of an address its own turn (app.grading.fair_queue).

A learner is established when either
- they earned it: first seen (their first stored action) at least `established_after.first_seen_s` ago, and
  at least `established_after.graded_submissions` of their submissions graded; both cost a flooder real work
  per identity, and each graded submission of a fresh identity went through the per-address caps; or
- something that vouches for them said so through `mark_established` (an operator, and later a course
  enrolment, an LTI launch or an API token: one call with a reason).

Either way it is written once to the learner's row (`established_at`, `established_by`): from then on the
check is one primary-key read. A learner who is not established is *fresh*; so is every request without a
learner row (a cookie minted for it), at the cost of one primary-key miss."""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.models import Learner, Submission, utcnow

EARNED = "graded-work"  # established_by of a learner who earned it
REASON_MAX_CHARS = 32  # the column's width


class EstablishedAfter(BaseModel):
    """When a learner has earned trust (the setting `PAPERLAB_ESTABLISHED_AFTER`, as JSON)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    graded_submissions: int = Field(
        default=1, ge=1, description="Submissions of the learner that must have been graded."
    )
    first_seen_s: float = Field(
        default=300.0, ge=0, description="Seconds since the learner was first seen (their first stored action)."
    )


def is_established(*, session: Session, learner_id: str, rule: EstablishedAfter, now: datetime | None = None) -> bool:
    """The one predicate: whether the per-address caps leave this learner alone. Records an earned trust on the
    learner's row (and commits) the first time it holds."""
    learner = session.get(Learner, learner_id)
    if learner is None:
        return False
    if learner.established_at is not None:
        return True
    now = now or utcnow()
    if learner.created_at > now - timedelta(seconds=rule.first_seen_s):
        return False
    graded = session.scalar(
        select(func.count()).where(Submission.learner_id == learner_id, Submission.status == "done")
    ) or 0
    if graded < rule.graded_submissions:
        return False
    learner.established_at, learner.established_by = now, EARNED
    session.commit()
    return True


def mark_established(*, session: Session, learner_id: str, reason: str) -> None:
    """The one call for whatever vouches for a learner (e.g. `reason="course:<id>"`, `"lti"`, `"api-token"`):
    from now on the per-address caps leave them alone. Makes the learner's row if it does not exist yet;
    a learner already established keeps the first reason. Commits."""
    if not reason or len(reason) > REASON_MAX_CHARS:
        raise ValueError(f"the reason is 1 to {REASON_MAX_CHARS} characters (it is stored), got {reason!r}")
    learner = session.get(Learner, learner_id)
    if learner is None:
        learner = Learner(id=learner_id)
        session.add(learner)
    if learner.established_at is None:
        learner.established_at, learner.established_by = utcnow(), reason
    try:
        session.commit()
    except IntegrityError:  # a concurrent first request made the row: mark that one
        session.rollback()
        mark_established(session=session, learner_id=learner_id, reason=reason)
