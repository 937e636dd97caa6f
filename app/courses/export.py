"""The gradebook as CSV or JSON, cell by cell (one row per member and problem, every fact the gradebook shows)
or as scores (one row per member: each problem's score and each assignment's total).

The CSV is written by `app.spreadsheet.csv_stream`, the one writer of every tabular export: a text cell that
could run as a formula (a name like `=HYPERLINK(...)`) is written with a quote in front, so a spreadsheet program
shows it and never runs it; numbers stay numbers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

from app.courses.gradebook import Gradebook
from app.spreadsheet import csv_stream

Layout = Literal["cells", "scores"]
CELL_COLUMNS = ["member_id", "learner_id", "name", "student_id", "email", "joined", "assignment", "problem",
                "due_at", "extended", "attempts", "solved", "solved_at", "late", "days_late", "missing",
                "revealed_then_solved", "score_percent", "override_by", "override_reason"]


def cell_rows(book: Gradebook) -> Iterator[dict[str, Any]]:
    titles = {a.id: a.title for a in book.assignments}
    for row in book.rows:
        member = row.member
        for result in row.results:
            for cell in result.cells:
                yield {
                    "member_id": member.id, "learner_id": member.learner_id or "", "name": member.name,
                    "student_id": member.student_id or "", "email": member.email or "",
                    "joined": member.joined_at is not None, "assignment": titles[result.assignment_id],
                    "problem": cell.problem, "due_at": cell.due_at.isoformat(), "extended": result.extended,
                    "attempts": cell.attempts, "solved": cell.solved,
                    "solved_at": cell.solved_at.isoformat() if cell.solved_at else "", "late": cell.late,
                    "days_late": cell.days_late, "missing": cell.missing,
                    "revealed_then_solved": cell.revealed_then_solved, "score_percent": round(100 * cell.score, 2),
                    "override_by": cell.override.author if cell.override else "",
                    "override_reason": cell.override.reason if cell.override else "",
                }


def score_columns(book: Gradebook) -> list[str]:
    columns = ["member_id", "name", "student_id", "email"]
    for assignment in book.assignments:
        columns += [f"{assignment.title} / {slug}" for slug in assignment.problems]
        columns.append(f"{assignment.title} (points of {len(assignment.problems)})")
    return columns


def score_rows(book: Gradebook) -> Iterator[dict[str, Any]]:
    columns = score_columns(book)
    for row in book.rows:
        values: list[Any] = [row.member.id, row.member.name, row.member.student_id or "", row.member.email or ""]
        for result in row.results:
            values += [round(100 * cell.score, 2) for cell in result.cells] + [result.points]
        yield dict(zip(columns, values, strict=True))


def as_csv(book: Gradebook, layout: Layout) -> Iterator[str]:
    if layout == "cells":
        return csv_stream(CELL_COLUMNS, cell_rows(book))
    return csv_stream(score_columns(book), score_rows(book))


def as_json(book: Gradebook, layout: Layout) -> str:
    rows = list(cell_rows(book) if layout == "cells" else score_rows(book))
    return json.dumps({"course_id": book.course_id, "generated_at": book.generated_at.isoformat(),
                       "layout": layout, "rows": rows}, ensure_ascii=False)
