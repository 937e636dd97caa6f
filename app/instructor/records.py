"""A stored verdict, broken into rows the dashboard aggregates in SQL: one `verdicts` row per graded
submission, a `check_failures` row per check that failed, and the learner's `check_tallies` counted up. Written
by the grading runner in the transaction that stores the report, so the numbers never disagree with the
reports learners see."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.instructor.battery import battery_hash, engine_version
from app.instructor.models import CheckFailure, CheckTally, Verdict
from app.models import Submission, utcnow
from grader import Problem, Report

FAILING = ("failed", "error")


def record_verdict(
    *, session: Session, submission: Submission, report: Report, problem: Problem | None, regrade: bool = False
) -> None:
    """Rows for `submission`'s report, stored once (a finished submission is never stored again). `problem` is
    None when the server no longer has it (the battery is then unknown: the empty string). A regrade is not a
    learner's attempt: it gets its verdict row but counts in no tally."""
    failing = [(position, check) for position, check in enumerate(report.checks) if check.status in FAILING]
    session.add(
        Verdict(
            submission_id=submission.id,
            learner_id=submission.learner_id,
            problem=submission.problem,
            solved=report.solved,
            passed=report.passed_count,
            total=len(report.checks),
            first_failing_check=failing[0][1].id if failing else None,
            regrade=regrade,
            battery=battery_hash(problem) if problem is not None else "",
            engine_version=engine_version(),
            submitted_at=submission.created_at,
            graded_at=utcnow(),
        )
    )
    session.add_all(
        CheckFailure(
            submission_id=submission.id,
            position=position,
            learner_id=submission.learner_id,
            problem=submission.problem,
            check_id=check.id,
            status=check.status,
            diagnosis=check.diagnosis,
        )
        for position, check in failing
    )
    if regrade or not report.checks:
        return
    rows = [
        {
            "problem": submission.problem,
            "check_id": check.id,
            "learner_id": submission.learner_id,
            "position": position,
            "attempts": 1,
            "failures": int(check.status in FAILING),
        }
        for position, check in enumerate(report.checks)
    ]
    session.execute(_count_up(session), rows)


def _count_up(session: Session) -> Any:
    """INSERT ... ON CONFLICT DO UPDATE adding to the tally (SQLite and PostgreSQL spell it alike)."""
    dialect = session.get_bind().dialect.name
    table = CheckTally.__table__
    assert isinstance(table, Table)
    if dialect == "postgresql":
        statement: Any = postgresql.insert(table)
    elif dialect == "sqlite":
        statement = sqlite.insert(table)
    else:
        raise NotImplementedError(f"check tallies need SQLite or PostgreSQL, not {dialect}")
    return statement.on_conflict_do_update(
        index_elements=["problem", "check_id", "learner_id"],
        set_={
            "attempts": table.c.attempts + statement.excluded.attempts,
            "failures": table.c.failures + statement.excluded.failures,
            "position": statement.excluded.position,
        },
    )
