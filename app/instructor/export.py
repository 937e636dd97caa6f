"""One row per learner and problem, as CSV or JSON, streamed from the database a thousand rows at a time (a
course's export never sits whole in memory).

Columns: learner_id, display_name, student_id, problem, attempts, first_solved_at (ISO 8601, UTC),
solved_after_reveal (true when the learner first solved it after revealing the solution, false when before
or without a reveal, empty while unsolved), last_verdict (solved | not solved |
error), checks_passed, checks_total. The CSV (app.spreadsheet) starts with a UTF-8 byte order mark, so that
spreadsheet programs read names with accents right, and has a header row; every text cell is quoted, one that a
spreadsheet would run as a formula (a display name `=HYPERLINK(...)`) gets a single quote in front, and the
counts are bare numbers. The JSON export carries every value as stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, select

from app.db import SessionFactory
from app.instructor.models import LearnerProfile, ProblemLearner, Verdict
from app.models import SolutionReveal, Solved
from app.spreadsheet import csv_stream

COLUMNS = ["learner_id", "display_name", "student_id", "problem", "attempts", "first_solved_at",
           "solved_after_reveal", "last_verdict", "checks_passed", "checks_total"]
BATCH = 1000


def export_rows(session_factory: SessionFactory, *, problem: str | None) -> Iterator[dict[str, Any]]:
    query = (
        select(ProblemLearner.learner_id, LearnerProfile.display_name, LearnerProfile.student_id,
               ProblemLearner.problem, ProblemLearner.attempts, Solved.solved_at, SolutionReveal.revealed_at,
               Verdict.solved, Verdict.passed, Verdict.total)
        .outerjoin(LearnerProfile, LearnerProfile.learner_id == ProblemLearner.learner_id)
        .outerjoin(Solved, and_(Solved.learner_id == ProblemLearner.learner_id,
                                Solved.problem == ProblemLearner.problem))
        .outerjoin(SolutionReveal, and_(SolutionReveal.learner_id == ProblemLearner.learner_id,
                                        SolutionReveal.problem == ProblemLearner.problem))
        .outerjoin(Verdict, and_(Verdict.learner_id == ProblemLearner.learner_id,
                                 Verdict.problem == ProblemLearner.problem, Verdict.regrade.is_(False),
                                 Verdict.submitted_at == ProblemLearner.last_submitted_at))
        .order_by(ProblemLearner.problem, ProblemLearner.learner_id)
    )
    if problem is not None:
        query = query.where(ProblemLearner.problem == problem)
    with session_factory() as session:
        for row in session.execute(query.execution_options(yield_per=BATCH)):
            yield {
                "learner_id": row.learner_id,
                "display_name": row.display_name or "",
                "student_id": row.student_id or "",
                "problem": row.problem,
                "attempts": row.attempts,
                "first_solved_at": _iso(row.solved_at),
                "solved_after_reveal": _after_reveal(row.solved_at, row.revealed_at),
                "last_verdict": "" if row.passed is None else ("solved" if row.solved else "not solved"),
                "checks_passed": row.passed if row.passed is not None else "",
                "checks_total": row.total if row.total is not None else "",
            }


def _after_reveal(solved_at: datetime | None, revealed_at: datetime | None) -> bool | str:
    if solved_at is None:
        return ""
    return revealed_at is not None and revealed_at <= solved_at


def _iso(value: datetime | None) -> str:
    """ISO 8601 in UTC to the second, `Z`-suffixed (2027-01-10T09:30:00Z): spreadsheets read it as a time, and
    nobody mistakes microseconds or a `+00:00` offset for part of the date."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else ""


def _csv_value(value: Any) -> Any:
    """Booleans as the documented `true`/`false` (Python's `True`/`False` otherwise)."""
    return ("true" if value else "false") if isinstance(value, bool) else value


def as_csv(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    """Through app.spreadsheet: a name or student id a spreadsheet would run as a formula is written as text;
    attempts and check counts stay numbers, booleans are the documented `true`/`false`."""
    return csv_stream(COLUMNS, ({name: _csv_value(value) for name, value in row.items()} for row in rows),
                      batch_rows=BATCH)


def as_json(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    """A JSON array, written element by element."""
    yield "["
    for index, row in enumerate(rows):
        yield ("," if index else "") + json.dumps(row, ensure_ascii=False)
    yield "]"
