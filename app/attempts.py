"""What an attempt's page shows beside its verdict: its code highlighted, what changed since the learner's
previous attempt at the same problem (a unified diff, highlighted), and, for a regrading, the attempt it graded
again. Shared by the learner's page and the instructor's view of it (both render submission.html)."""

from __future__ import annotations

import difflib
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.instructor.regrade import regrade_origins
from app.markdown import highlight_code
from app.models import Submission
from app.progress import regrade_copies

# A diff longer than this is not read, only scrolled: past it the page says how many lines it left out.
MAX_DIFF_LINES = 400


def previous_attempt(*, session: Session, submission: Submission) -> Submission | None:
    """The learner's own attempt at the same problem just before this one (regradings are not attempts)."""
    return session.scalars(
        select(Submission)
        .where(
            Submission.learner_id == submission.learner_id,
            Submission.problem == submission.problem,
            Submission.created_at < submission.created_at,
            Submission.id.not_in(regrade_copies()),
        )
        .order_by(Submission.created_at.desc())
        .limit(1)
    ).first()


def code_diff(before: str, after: str) -> tuple[str, int]:
    """A unified diff of two attempts' code and how many lines it changed (added plus removed)."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), "previous attempt",
                                      "this attempt", lineterm="", n=3))  # fmt: skip
    changed = sum(1 for line in lines[2:] if line[:1] in "+-")
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... {len(lines) - MAX_DIFF_LINES} more lines of the diff not shown"]
    return "\n".join(lines), changed


def attempt_extras(*, session: Session, submission_id: str) -> dict[str, Any]:
    """submission.html's `code_html`, `previous` ({id, created_at, changed_lines, diff_html} or None) and
    `regraded_from` ({id, created_at} of the learner's attempt this regrading graded again, or None)."""
    row = session.get(Submission, submission_id)
    if row is None:
        return {"code_html": "", "previous": None, "regraded_from": None}
    origin = regrade_origins(session=session, submission_ids=[row.id]).get(row.id)
    previous = None if origin is not None else previous_attempt(session=session, submission=row)
    before = None
    if previous is not None:
        diff, changed = code_diff(previous.code, row.code)
        before = {"id": previous.id, "created_at": previous.created_at.isoformat(), "changed_lines": changed,
                  "diff_html": highlight_code(diff, "diff") if changed else ""}  # fmt: skip
    return {
        "code_html": highlight_code(row.code, "python"),
        "previous": before,
        "regraded_from": {"id": origin.id, "created_at": origin.created_at.isoformat()} if origin else None,
    }
