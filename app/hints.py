"""Progressive hints: each unlocks after the problem's `after_attempts` failed attempts, or earlier when the
learner asks for it (after confirming in the page), which is recorded. Only unlocked text leaves the server.

Hints open in order: asking for hint 3 while hint 2 is still locked is refused, so that a learner never
skips the nudge and lands on the near-answer by accident."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import crud
from app.errors import AppError, NotFound
from app.models import HintUnlock
from app.progress import failed_attempts
from grader import Problem


class HintOrderConflict(AppError):
    status_code = 409
    title = "Open the earlier hint first"


class HintOut(BaseModel):
    index: int = Field(description="0-based position; hints open in this order.")
    unlocked: bool
    text: str | None = Field(description="The hint, only once it is unlocked.")
    unlocks_after: int = Field(description="Failed attempts after which it opens by itself.")
    unlocked_by: Literal["attempts", "request"] | None = Field(
        default=None, description="What opened it: enough failed attempts, or the learner asking."
    )


class HintUnlockRequest(BaseModel):
    confirm: Literal[True] = Field(description="The learner confirmed they want this hint now.")


def hints_for(*, session: Session, learner_id: str, problem: Problem) -> list[HintOut]:
    failed = failed_attempts(session=session, learner_id=learner_id, problem=problem.slug)
    requested = set(
        session.scalars(
            select(HintUnlock.hint_index).where(
                HintUnlock.learner_id == learner_id, HintUnlock.problem == problem.slug
            )
        )
    )
    hints = []
    for index, hint in enumerate(problem.hints):
        by_attempts = failed >= hint.after_attempts
        unlocked_by: Literal["attempts", "request"] | None = (
            "attempts" if by_attempts else "request" if index in requested else None
        )
        hints.append(
            HintOut(
                index=index,
                unlocked=unlocked_by is not None,
                text=hint.text if unlocked_by is not None else None,
                unlocks_after=hint.after_attempts,
                unlocked_by=unlocked_by,
            )
        )
    return hints


def unlock_hint(*, session: Session, learner_id: str, problem: Problem, index: int) -> list[HintOut]:
    """Opens hint `index` on request (idempotent) and returns every hint as the learner now sees them."""
    hints = hints_for(session=session, learner_id=learner_id, problem=problem)
    if not 0 <= index < len(hints):
        raise NotFound(f"'{problem.slug}' has {len(hints)} hint(s), numbered from 0; there is no hint {index}.")
    if hints[index].unlocked:
        return hints
    earlier = next((h for h in hints[:index] if not h.unlocked), None)
    if earlier is not None:
        raise HintOrderConflict(f"Hint {earlier.index + 1} is still locked; open it before hint {index + 1}.")
    crud.ensure_learner(session=session, learner_id=learner_id)
    session.add(HintUnlock(learner_id=learner_id, problem=problem.slug, hint_index=index))
    try:
        session.commit()
    except IntegrityError:  # the same request from another tab got there first
        session.rollback()
    return hints_for(session=session, learner_id=learner_id, problem=problem)
