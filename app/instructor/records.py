"""A stored verdict, turned into the numbers the dashboard reads: a `verdicts` row per graded submission, and
the tallies and roll-ups of app.instructor.models counted up. Written by the grading runner in the transaction
that stores the report, so the numbers never disagree with the reports learners see.

Each tally is an INSERT ... ON CONFLICT DO UPDATE (SQLite and PostgreSQL spell it alike) returning the new
counts, which say whether this learner is new to a check (attempts went to 1) or failed it for the first time
(failures went to 1): that is what the roll-up of learners per check counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.instructor.battery import battery_hash, engine_version
from app.instructor.models import (
    CheckRollup,
    CheckTally,
    DiagnosisRollup,
    DiagnosisTally,
    FirstFailureRollup,
    ProblemLearner,
    Verdict,
)
from app.instructor.regrade import mark_done
from app.models import Submission, utcnow
from grader import Problem, Report

FAILING = ("failed", "error")
NO_FAILURE = ""  # the first failing check of an attempt that failed none
MAX_DIAGNOSIS_CHARS = 500


def record_verdict(
    *, session: Session, submission: Submission, report: Report, problem: Problem | None, regrade: bool = False
) -> None:
    """Rows for `submission`'s report, stored once (a finished submission is never stored again). `problem` is
    None when the server no longer has it (the battery is then unknown: the empty string). A regrade is not a
    learner's attempt (whether `regrade` says so or a Regrade links to it): it gets its verdict row but counts
    in no tally."""
    regrade = mark_done(session=session, submission_id=submission.id) or regrade
    failing = [check for check in report.checks if check.status in FAILING]
    session.add(
        Verdict(
            submission_id=submission.id,
            learner_id=submission.learner_id,
            problem=submission.problem,
            solved=report.solved,
            passed=report.passed_count,
            total=len(report.checks),
            first_failing_check=failing[0].id if failing else None,
            regrade=regrade,
            battery=battery_hash(problem) if problem is not None else "",
            engine_version=engine_version(),
            submitted_at=submission.created_at,
            graded_at=utcnow(),
        )
    )
    if not regrade:
        count_attempt(session=session, submission=submission, report=report)


def count_attempt(*, session: Session, submission: Submission, report: Report) -> None:
    slug, learner = submission.problem, submission.learner_id
    _upsert(session, ProblemLearner, [{
        "problem": slug, "learner_id": learner, "attempts": 1,
        "first_submitted_at": submission.created_at, "last_submitted_at": submission.created_at,
    }], add=["attempts"], replace=["last_submitted_at"])
    if report.solved:
        session.execute(
            update(ProblemLearner)
            .where(ProblemLearner.problem == slug, ProblemLearner.learner_id == learner,
                   ProblemLearner.attempts_to_solve.is_(None))
            .values(attempts_to_solve=ProblemLearner.attempts, solved_submitted_at=submission.created_at)
        )
    if not report.checks:
        return  # the code did not load: no check ran, nothing failed first
    failed = [check.status in FAILING for check in report.checks]
    tallies = _upsert(session, CheckTally, [
        {"problem": slug, "check_id": check.id, "learner_id": learner, "attempts": 1, "failures": int(failure)}
        for check, failure in zip(report.checks, failed, strict=True)
    ], add=["attempts", "failures"], returning=("attempts", "failures"))
    _upsert(session, CheckRollup, [
        {"problem": slug, "check_id": check.id, "position": position, "attempts": 1, "failures": int(failure),
         "learners": int(attempts == 1), "learners_failed": int(failure and failures == 1)}
        for position, (check, failure, (attempts, failures)) in enumerate(zip(report.checks, failed, tallies,
                                                                              strict=True))
    ], add=["attempts", "failures", "learners", "learners_failed"], replace=["position"])
    first = next((check.id for check, failure in zip(report.checks, failed, strict=True) if failure), NO_FAILURE)
    _upsert(session, FirstFailureRollup, [{"problem": slug, "check_id": first, "attempts": 1}], add=["attempts"])
    diagnosed = [(check.id, check.diagnosis[:MAX_DIAGNOSIS_CHARS]) for check in report.checks if check.diagnosis]
    if not diagnosed:
        return
    times = _upsert(session, DiagnosisTally, [
        {"problem": slug, "check_id": check_id, "diagnosis": diagnosis, "learner_id": learner, "times": 1}
        for check_id, diagnosis in diagnosed
    ], add=["times"], returning=("times",))
    _upsert(session, DiagnosisRollup, [
        {"problem": slug, "check_id": check_id, "diagnosis": diagnosis, "times": 1, "learners": int(n == 1)}
        for (check_id, diagnosis), (n,) in zip(diagnosed, times, strict=True)
    ], add=["times", "learners"])


def _upsert(
    session: Session,
    model: type[Any],
    rows: list[dict[str, Any]],
    *,
    add: Sequence[str],
    replace: Sequence[str] = (),
    returning: Sequence[str] = (),
) -> list[tuple[Any, ...]]:
    """Insert `rows`; where one exists, add the `add` columns to it and overwrite the `replace` ones. Returns
    the `returning` columns after the change, one tuple per row in order (empty without `returning`)."""
    table = model.__table__
    assert isinstance(table, Table)
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        statement: Any = postgresql.insert(table)
    elif dialect == "sqlite":
        statement = sqlite.insert(table)
    else:
        raise NotImplementedError(f"the instructor's tallies need SQLite or PostgreSQL, not {dialect}")
    statement = statement.on_conflict_do_update(
        index_elements=[column.name for column in table.primary_key.columns],
        set_={
            **{name: table.c[name] + statement.excluded[name] for name in add},
            **{name: statement.excluded[name] for name in replace},
        },
    )
    if not returning:
        session.execute(statement, rows)
        return []
    statement = statement.returning(*(table.c[name] for name in returning), sort_by_parameter_order=True)
    return [tuple(row) for row in session.execute(statement, rows)]
