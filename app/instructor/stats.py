"""What learners get wrong, per problem: read from the roll-ups app.instructor.records keeps (tens of rows
per problem) and one row per learner of `problem_learners` (for the medians, which SQLite cannot compute). No
report JSON is read, and no verdict row: see app.instructor.models for why."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime

from pydantic import BaseModel, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.instructor.models import (
    CheckRollup,
    DiagnosisRollup,
    FirstFailureRollup,
    LearnerProfile,
    ProblemLearner,
)
from app.instructor.records import NO_FAILURE
from app.models import Solved


class CheckStat(BaseModel):
    check_id: str
    attempts: int = Field(description="Learners' attempts that ran this check.")
    failed_attempts: int
    attempt_failure_share: float = Field(description="failed_attempts / attempts.")
    learners: int = Field(description="Learners whose attempts ran this check.")
    learners_failed: int = Field(description="Learners who failed it at least once.")
    learner_failure_share: float


class FirstFailure(BaseModel):
    check_id: str | None = Field(description="None: attempts that failed no check.")
    attempts: int
    share: float


class DiagnosisStat(BaseModel):
    diagnosis: str = Field(description="The known mistake, in the words learners saw.")
    check_id: str = Field(description="The check on which it was diagnosed.")
    times: int
    learners: int


class ProblemStats(BaseModel):
    problem: str
    learners_tried: int
    learners_solved: int
    attempts: int
    median_attempts_to_solve: float | None
    median_seconds_to_solve: float | None = Field(description="From a solver's first attempt to the solving one.")
    checks: list[CheckStat] = Field(description="Worst first: by share of attempts failing it.")
    first_failing: list[FirstFailure]
    diagnoses: list[DiagnosisStat]


class ProblemOverview(BaseModel):
    problem: str
    learners_tried: int
    learners_solved: int
    attempts: int
    last_attempt_at: datetime | None


class LearnerRow(BaseModel):
    learner_id: str
    display_name: str | None
    student_id: str | None
    problems_attempted: int
    problems_solved: int
    attempts: int
    last_activity: datetime | None


def fraction(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def problem_stats(*, session: Session, problem: str) -> ProblemStats:
    tried, attempts = session.execute(
        select(func.count(), func.coalesce(func.sum(ProblemLearner.attempts), 0))
        .where(ProblemLearner.problem == problem)
    ).one()
    solved = _solved_counts(session, problem).get(problem, 0)
    attempts_to_solve, seconds_to_solve = _solver_medians(session, problem)
    return ProblemStats(
        problem=problem,
        learners_tried=int(tried),
        learners_solved=int(solved),
        attempts=int(attempts),
        median_attempts_to_solve=attempts_to_solve,
        median_seconds_to_solve=seconds_to_solve,
        checks=_check_stats(session, problem),
        first_failing=_first_failing(session, problem, int(attempts)),
        diagnoses=_diagnoses(session, problem),
    )


def _solver_medians(session: Session, problem: str) -> tuple[float | None, float | None]:
    rows = session.execute(
        select(ProblemLearner.attempts_to_solve, ProblemLearner.first_submitted_at,
               ProblemLearner.solved_submitted_at)
        .where(ProblemLearner.problem == problem, ProblemLearner.attempts_to_solve.is_not(None))
    ).all()
    if not rows:
        return None, None
    counts = [int(row[0]) for row in rows if row[0] is not None]
    seconds = [(aware_utc(row[2]) - aware_utc(row[1])).total_seconds() for row in rows if row[1] and row[2]]
    return float(statistics.median(counts)), (round(statistics.median(seconds), 1) if seconds else None)


def aware_utc(value: datetime | str) -> datetime:
    """Aggregates bypass the column type: SQLite hands back naive UTC text, PostgreSQL an aware datetime."""
    parsed = datetime.fromisoformat(value) if isinstance(value, str) else value
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _check_stats(session: Session, problem: str) -> list[CheckStat]:
    rows = session.scalars(select(CheckRollup).where(CheckRollup.problem == problem)).all()
    stats = [
        (
            row.position,
            CheckStat(
                check_id=row.check_id,
                attempts=row.attempts,
                failed_attempts=row.failures,
                attempt_failure_share=fraction(row.failures, row.attempts),
                learners=row.learners,
                learners_failed=row.learners_failed,
                learner_failure_share=fraction(row.learners_failed, row.learners),
            ),
        )
        for row in rows
    ]
    stats.sort(key=lambda item: (-item[1].attempt_failure_share, -item[1].learner_failure_share, item[0]))
    return [stat for _, stat in stats]


def _first_failing(session: Session, problem: str, attempts: int) -> list[FirstFailure]:
    rows = session.scalars(
        select(FirstFailureRollup)
        .where(FirstFailureRollup.problem == problem)
        .order_by(FirstFailureRollup.attempts.desc(), FirstFailureRollup.check_id)
    ).all()
    return [
        FirstFailure(check_id=row.check_id if row.check_id != NO_FAILURE else None, attempts=row.attempts,
                     share=fraction(row.attempts, attempts))
        for row in rows
    ]


def _diagnoses(session: Session, problem: str) -> list[DiagnosisStat]:
    rows = session.scalars(
        select(DiagnosisRollup)
        .where(DiagnosisRollup.problem == problem)
        .order_by(DiagnosisRollup.times.desc(), DiagnosisRollup.diagnosis, DiagnosisRollup.check_id)
    ).all()
    return [DiagnosisStat(diagnosis=row.diagnosis, check_id=row.check_id, times=row.times, learners=row.learners)
            for row in rows]


def problem_overviews(*, session: Session, problems: list[str]) -> list[ProblemOverview]:
    """One row per problem on this server, in the order given (problems nobody tried included)."""
    tried = {
        problem: (int(learners), int(attempts), last)
        for problem, learners, attempts, last in session.execute(
            select(ProblemLearner.problem, func.count(), func.sum(ProblemLearner.attempts),
                   func.max(ProblemLearner.last_submitted_at))
            .group_by(ProblemLearner.problem)
        )
    }
    solved = _solved_counts(session)
    return [
        ProblemOverview(
            problem=problem,
            learners_tried=tried.get(problem, (0, 0, None))[0],
            attempts=tried.get(problem, (0, 0, None))[1],
            last_attempt_at=aware_utc(tried[problem][2]) if problem in tried and tried[problem][2] else None,
            learners_solved=solved.get(problem, 0),
        )
        for problem in problems
    ]


def _solved_counts(session: Session, problem: str | None = None) -> dict[str, int]:
    """Learners who solved each problem, by the `solved` table (which a regrade may add to, never take from)."""
    query = select(Solved.problem, func.count()).group_by(Solved.problem)
    if problem is not None:
        query = query.where(Solved.problem == problem)
    return {slug: int(n) for slug, n in session.execute(query)}


def learner_rows(*, session: Session, limit: int = 500) -> list[LearnerRow]:
    """Learners by last activity, newest first."""
    solved = (
        select(Solved.learner_id, func.count().label("solved")).group_by(Solved.learner_id).subquery("solved_counts")
    )
    activity = (
        select(
            ProblemLearner.learner_id,
            func.count().label("problems"),
            func.sum(ProblemLearner.attempts).label("attempts"),
            func.max(ProblemLearner.last_submitted_at).label("last"),
        )
        .group_by(ProblemLearner.learner_id)
        .subquery("activity")
    )
    rows = session.execute(
        select(
            activity.c.learner_id,
            LearnerProfile.display_name,
            LearnerProfile.student_id,
            activity.c.problems,
            func.coalesce(solved.c.solved, 0),
            activity.c.attempts,
            activity.c.last,
        )
        .outerjoin(LearnerProfile, LearnerProfile.learner_id == activity.c.learner_id)
        .outerjoin(solved, solved.c.learner_id == activity.c.learner_id)
        .order_by(activity.c.last.desc())
        .limit(limit)
    ).all()
    return [
        LearnerRow(
            learner_id=learner_id,
            display_name=name,
            student_id=student_id,
            problems_attempted=int(problems),
            problems_solved=int(solved_count),
            attempts=int(attempts),
            last_activity=aware_utc(last) if last else None,
        )
        for learner_id, name, student_id, problems, solved_count, attempts, last in rows
    ]
