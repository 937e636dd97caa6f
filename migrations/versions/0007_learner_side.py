"""The learner's side: a stopped grading is recorded as such (`submissions.stopped`: the Stop button is not a
failed attempt, so it unlocks no hint and brings the solution no closer), and a reply to "Report this check"
remembers when its learner saw it (`check_reports.reply_seen_at`, behind the badge on the home and problem
pages). Stopped gradings already stored are found in their reports.

Revision ID: 0007_learner_side
Revises: 0006_courses
Create Date: 2027-01-10
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_learner_side"
down_revision: str | None = "0006_courses"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN, not a batch: on SQLite a batch copies the table and drops the old one, and with foreign
    # keys on, dropping `submissions` cascades to the `solved` rows (learners would lose their unlocked notes).
    op.add_column("submissions", sa.Column("stopped", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("check_reports", sa.Column("reply_seen_at", sa.DateTime(timezone=True), nullable=True))
    _backfill_stopped()


def _backfill_stopped() -> None:
    """Reports made since the Stop button existed say `"stopped": true`; the LIKE only narrows the rows parsed."""
    connection = op.get_bind()
    submissions = sa.table("submissions", sa.column("id", sa.String), sa.column("report", sa.Text),
                           sa.column("stopped", sa.Boolean))  # fmt: skip
    rows = connection.execute(
        sa.select(submissions.c.id, submissions.c.report).where(submissions.c.report.like('%"stopped"%'))
    ).all()
    stopped = [row.id for row in rows if json.loads(row.report or "null") is not None
               and json.loads(row.report).get("stopped") is True]  # fmt: skip
    for start in range(0, len(stopped), 500):
        connection.execute(
            sa.update(submissions).where(submissions.c.id.in_(stopped[start : start + 500])).values(stopped=True)
        )


def downgrade() -> None:
    op.drop_column("check_reports", "reply_seen_at")  # DROP COLUMN (SQLite 3.35+): no table copy, no cascade
    op.drop_column("submissions", "stopped")
