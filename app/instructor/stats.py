"""What learners get wrong, per problem, aggregated in SQL over `verdicts`, `check_tallies`, `check_failures`
and `solved`: no report JSON is read. Python sees at most one row per solver (for the medians, which SQLite
cannot compute) and one per check."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime

from pydantic import BaseModel, Field
from sqlalchemy import Integer, and_, case, cast, distinct, func, select
from sqlalchemy.orm import Session

from app.instructor.models import CheckFailure, CheckTally, LearnerProfile, Verdict
from app.models import Solved, Submission


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
    diagnosis: str
    check_ids: list[str]
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


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _attempts_of(problem: str) -> object:
    return and_(Verdict.problem == problem, Verdict.regrade.is_(False))


def problem_stats(*, session: Session, problem: str) -> ProblemStats:
    totals = session.execute(
        select(func.count(), func.count(distinct(Verdict.learner_id))).where(_attempts_of(problem))  # type: ignore[arg-type]
    ).one()
    attempts, tried = int(totals[0]), int(totals[1])
    solved = session.scalar(select(func.count()).select_from(Solved).where(Solved.problem == problem)) or 0
    attempts_to_solve, seconds_to_solve = _solver_medians(session, problem)
    return ProblemStats(
        problem=problem,
        learners_tried=tried,
        learners_solved=solved,
        attempts=attempts,
        median_attempts_to_solve=attempts_to_solve,
        median_seconds_to_solve=seconds_to_solve,
        checks=_check_stats(session, problem),
        first_failing=_first_failing(session, problem, attempts),
        diagnoses=_diagnoses(session, problem),
    )


def _solver_medians(session: Session, problem: str) -> tuple[float | None, float | None]:
    """Per solver, in SQL: the attempts up to and including the solving one, and the first attempt's time."""
    solving = Submission.__table__.alias("solving")
    rows = session.execute(
        select(
            func.count(Verdict.submission_id),
            func.min(Verdict.submitted_at),
            func.max(solving.c.created_at),
        )
        .select_from(Solved)
        .join(solving, solving.c.id == Solved.submission_id)
        .join(
            Verdict,
            and_(
                Verdict.learner_id == Solved.learner_id,
                Verdict.problem == Solved.problem,
                Verdict.regrade.is_(False),
                Verdict.submitted_at <= solving.c.created_at,
            ),
        )
        .where(Solved.problem == problem)
        .group_by(Solved.learner_id)
    ).all()
    if not rows:
        return None, None
    counts = [int(row[0]) for row in rows]
    seconds = [(_aware(row[2]) - _aware(row[1])).total_seconds() for row in rows if row[1] and row[2]]
    return float(statistics.median(counts)), (round(statistics.median(seconds), 1) if seconds else None)


def _aware(value: datetime | str) -> datetime:
    """Aggregates bypass the column type: SQLite hands back naive UTC text, PostgreSQL an aware datetime."""
    parsed = datetime.fromisoformat(value) if isinstance(value, str) else value
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _check_stats(session: Session, problem: str) -> list[CheckStat]:
    rows = session.execute(
        select(
            CheckTally.check_id,
            func.min(CheckTally.position),
            func.sum(CheckTally.attempts),
            func.sum(CheckTally.failures),
            func.count(),
            func.sum(cast(case((CheckTally.failures > 0, 1), else_=0), Integer)),
        )
        .where(CheckTally.problem == problem)
        .group_by(CheckTally.check_id)
    ).all()
    stats = [
        (
            int(position),
            CheckStat(
                check_id=check_id,
                attempts=int(ran),
                failed_attempts=int(failed),
                attempt_failure_share=_share(int(failed), int(ran)),
                learners=int(learners),
                learners_failed=int(learners_failed),
                learner_failure_share=_share(int(learners_failed), int(learners)),
            ),
        )
        for check_id, position, ran, failed, learners, learners_failed in rows
    ]
    stats.sort(key=lambda item: (-item[1].attempt_failure_share, -item[1].learner_failure_share, item[0]))
    return [stat for _, stat in stats]


def _first_failing(session: Session, problem: str, attempts: int) -> list[FirstFailure]:
    rows = session.execute(
        select(Verdict.first_failing_check, func.count())
        .where(_attempts_of(problem))  # type: ignore[arg-type]
        .group_by(Verdict.first_failing_check)
        .order_by(func.count().desc())
    ).all()
    return [FirstFailure(check_id=check, attempts=int(n), share=_share(int(n), attempts)) for check, n in rows]


def _diagnoses(session: Session, problem: str) -> list[DiagnosisStat]:
    diagnosed = and_(CheckFailure.problem == problem, CheckFailure.diagnosis.is_not(None))
    checks: dict[str, list[str]] = {}
    for diagnosis, check_id in session.execute(  # diagnosis is never None here (the WHERE)
        select(CheckFailure.diagnosis, CheckFailure.check_id)
        .where(diagnosed)
        .group_by(CheckFailure.diagnosis, CheckFailure.check_id)
        .order_by(CheckFailure.check_id)
    ):
        checks.setdefault(str(diagnosis), []).append(check_id)
    rows = session.execute(
        select(CheckFailure.diagnosis, func.count(), func.count(distinct(CheckFailure.learner_id)))
        .where(diagnosed)
        .group_by(CheckFailure.diagnosis)
    ).all()
    stats = [
        DiagnosisStat(
            diagnosis=str(diagnosis), check_ids=checks.get(str(diagnosis), []), times=int(n), learners=int(learners)
        )
        for diagnosis, n, learners in rows
    ]
    return sorted(stats, key=lambda stat: (-stat.times, stat.diagnosis))


def problem_overviews(*, session: Session, problems: list[str]) -> list[ProblemOverview]:
    """One row per problem on this server, in the order given (problems nobody tried included)."""
    tried = {
        problem: (int(n), int(learners), last)
        for problem, n, learners, last in session.execute(
            select(
                Verdict.problem, func.count(), func.count(distinct(Verdict.learner_id)), func.max(Verdict.submitted_at)
            )
            .where(Verdict.regrade.is_(False))
            .group_by(Verdict.problem)
        )
    }
    by_problem = select(Solved.problem, func.count()).group_by(Solved.problem)
    solved = {problem: n for problem, n in session.execute(by_problem)}
    return [
        ProblemOverview(
            problem=problem,
            attempts=tried.get(problem, (0, 0, None))[0],
            learners_tried=tried.get(problem, (0, 0, None))[1],
            last_attempt_at=_aware(tried[problem][2]) if problem in tried and tried[problem][2] else None,
            learners_solved=int(solved.get(problem, 0)),
        )
        for problem in problems
    ]


def learner_rows(*, session: Session, limit: int = 500) -> list[LearnerRow]:
    """Learners by last activity, newest first."""
    solved = (
        select(Solved.learner_id, func.count().label("solved")).group_by(Solved.learner_id).subquery("solved_counts")
    )
    activity = (
        select(
            Verdict.learner_id,
            func.count(distinct(Verdict.problem)).label("problems"),
            func.count().label("attempts"),
            func.max(Verdict.submitted_at).label("last"),
        )
        .where(Verdict.regrade.is_(False))
        .group_by(Verdict.learner_id)
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
            last_activity=_aware(last) if last else None,
        )
        for learner_id, name, student_id, problems, solved_count, attempts, last in rows
    ]
