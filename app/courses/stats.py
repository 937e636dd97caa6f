"""What a course's learners get wrong on one problem: the dashboard's statistics (app.instructor.stats), counted
over the course's members only. Read from the per-learner tallies (`problem_learners`, `check_tallies`,
`diagnosis_tallies`) and the verdict rows of those learners, grouped in SQL: at most one row per learner and
check, for a few hundred learners."""

from __future__ import annotations

import statistics
from typing import Any

from sqlalchemy import Select, case, func, select
from sqlalchemy.orm import Session

from app.courses.models import CourseMember
from app.instructor.models import CheckRollup, CheckTally, DiagnosisTally, ProblemLearner, Verdict
from app.instructor.stats import CheckStat, DiagnosisStat, FirstFailure, ProblemStats, aware_utc, fraction
from app.models import Solved


def _learners(course_id: str) -> Select[Any]:
    return select(CourseMember.learner_id).where(CourseMember.course_id == course_id,
                                                 CourseMember.learner_id.is_not(None))


def course_problem_stats(*, session: Session, course_id: str, problem: str) -> ProblemStats:
    learners = _learners(course_id)
    in_course = ProblemLearner.learner_id.in_(learners)
    tried, attempts = session.execute(
        select(func.count(), func.coalesce(func.sum(ProblemLearner.attempts), 0))
        .where(ProblemLearner.problem == problem, in_course)).one()
    solved = session.scalar(select(func.count()).where(Solved.problem == problem,
                                                       Solved.learner_id.in_(learners))) or 0
    rows = session.execute(
        select(ProblemLearner.attempts_to_solve, ProblemLearner.first_submitted_at, ProblemLearner.solved_submitted_at)
        .where(ProblemLearner.problem == problem, in_course, ProblemLearner.attempts_to_solve.is_not(None))).all()
    counts = [int(row[0]) for row in rows if row[0] is not None]
    seconds = [(aware_utc(row[2]) - aware_utc(row[1])).total_seconds() for row in rows if row[1] and row[2]]
    return ProblemStats(
        problem=problem, learners_tried=int(tried), learners_solved=int(solved), attempts=int(attempts),
        median_attempts_to_solve=float(statistics.median(counts)) if counts else None,
        median_seconds_to_solve=round(statistics.median(seconds), 1) if seconds else None,
        checks=_checks(session, problem, learners), first_failing=_first_failing(session, problem, learners),
        diagnoses=_diagnoses(session, problem, learners),
    )


def _checks(session: Session, problem: str, learners: Select[Any]) -> list[CheckStat]:
    positions = dict(session.execute(select(CheckRollup.check_id, CheckRollup.position)
                                     .where(CheckRollup.problem == problem)).all())
    found = []
    for check_id, attempts, failures, learners_n, failed_n in session.execute(
        select(CheckTally.check_id, func.sum(CheckTally.attempts), func.sum(CheckTally.failures), func.count(),
               func.sum(case((CheckTally.failures > 0, 1), else_=0)))
        .where(CheckTally.problem == problem, CheckTally.learner_id.in_(learners))
        .group_by(CheckTally.check_id)
    ):
        found.append(CheckStat(check_id=check_id, attempts=int(attempts), failed_attempts=int(failures),
                               attempt_failure_share=fraction(int(failures), int(attempts)), learners=int(learners_n),
                               learners_failed=int(failed_n),
                               learner_failure_share=fraction(int(failed_n), int(learners_n))))
    found.sort(key=lambda c: (-c.attempt_failure_share, -c.learner_failure_share, positions.get(c.check_id, 0)))
    return found


def _first_failing(session: Session, problem: str, learners: Select[Any]) -> list[FirstFailure]:
    rows = session.execute(
        select(Verdict.first_failing_check, func.count())
        .where(Verdict.problem == problem, Verdict.regrade.is_(False), Verdict.learner_id.in_(learners))
        .group_by(Verdict.first_failing_check)).all()
    total = sum(int(n) for _, n in rows)
    found = [FirstFailure(check_id=check, attempts=int(n), share=fraction(int(n), total)) for check, n in rows]
    return sorted(found, key=lambda f: (-f.attempts, f.check_id or ""))


def _diagnoses(session: Session, problem: str, learners: Select[Any]) -> list[DiagnosisStat]:
    rows = session.execute(
        select(DiagnosisTally.diagnosis, DiagnosisTally.check_id, func.sum(DiagnosisTally.times), func.count())
        .where(DiagnosisTally.problem == problem, DiagnosisTally.learner_id.in_(learners))
        .group_by(DiagnosisTally.diagnosis, DiagnosisTally.check_id)).all()
    found = [DiagnosisStat(diagnosis=d, check_id=c, times=int(t), learners=int(n)) for d, c, t, n in rows]
    return sorted(found, key=lambda d: (-d.times, d.diagnosis, d.check_id))
