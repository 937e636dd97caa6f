"""What a learner has done with a problem, as the learner's side needs it: failed attempts (which unlock
hints and the solution), when they solved it, whether they read the solution first.

A failed attempt is a graded submission (status `done`) that did not solve the problem: code that failed a
check, did not load or hit a limit. A run the grader itself could not grade (`error`) is not the learner's
failure and unlocks nothing; nor is a run the learner stopped (the Stop button), nor a regrading an instructor
started (app.instructor.regrade: the same code graded again, not a new try)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from app.instructor.models import Regrade
from app.models import SolutionReveal, Solved, Submission

ProblemProgress = Literal["not_started", "attempted", "solved", "solved_after_reveal"]
PROGRESS_LABELS: dict[ProblemProgress, str] = {
    "not_started": "Not started",
    "attempted": "Attempted",
    "solved": "Solved",
    "solved_after_reveal": "Solved after reveal",
}


def failed_attempts(*, session: Session, learner_id: str, problem: str) -> int:
    return (
        session.scalar(
            select(func.count()).where(
                Submission.learner_id == learner_id,
                Submission.problem == problem,
                Submission.status == "done",
                Submission.solved.is_(False),
                Submission.stopped.is_(False),
                Submission.id.not_in(regrade_copies()),
            )
        )
        or 0
    )


def regrade_copies() -> Select[Any]:
    """The ids of submissions that are regradings (made by app.instructor.regrade), not the learner's runs."""
    return select(Regrade.regrade_submission_id).where(Regrade.regrade_submission_id.is_not(None))


def reveal_of(*, session: Session, learner_id: str, problem: str) -> SolutionReveal | None:
    return session.get(SolutionReveal, (learner_id, problem))


def solved_at(*, session: Session, learner_id: str, problem: str) -> datetime | None:
    solved = session.get(Solved, (learner_id, problem))
    return solved.solved_at if solved is not None else None


def solved_after_reveal(solved: datetime | None, revealed: datetime | None) -> bool:
    """A solve counts either way; one that came after reading the solution is marked as such."""
    return solved is not None and revealed is not None and revealed <= solved


def progress_by_problem(*, session: Session, learner_id: str) -> dict[str, ProblemProgress]:
    """slug -> progress for every problem this learner has touched (absent: "not_started")."""
    progress: dict[str, ProblemProgress] = {
        problem: "attempted"
        for problem in session.scalars(
            select(Submission.problem).where(Submission.learner_id == learner_id).group_by(Submission.problem)
        )
    }
    reveals = {
        reveal.problem: reveal.revealed_at
        for reveal in session.scalars(select(SolutionReveal).where(SolutionReveal.learner_id == learner_id))
    }
    for solved in session.scalars(select(Solved).where(Solved.learner_id == learner_id)):
        after = solved_after_reveal(solved.solved_at, reveals.get(solved.problem))
        progress[solved.problem] = "solved_after_reveal" if after else "solved"
    return progress
