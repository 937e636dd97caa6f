"""The instructor side: instructor accounts and sessions, learner profiles, and verdicts broken into rows
(`verdicts`, `check_failures`, `check_tallies`) for the dashboard, back-filled from the reports already stored.

Revision ID: 0003
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BACKFILL_BATCH = 500
FAILING = ("failed", "error")


def upgrade() -> None:
    op.create_table(
        "instructors",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_instructors"),
        sa.UniqueConstraint("email", name="uq_instructors_email"),
    )
    op.create_table(
        "instructor_sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("instructor_id", sa.String(36), nullable=False),
        sa.Column("csrf_token", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["instructor_id"],
            ["instructors.id"],
            name="fk_instructor_sessions_instructor_id_instructors",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_hash", name="pk_instructor_sessions"),
    )
    op.create_index("ix_instructor_sessions_instructor_id", "instructor_sessions", ["instructor_id"])
    op.create_table(
        "learner_profiles",
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("display_name", sa.String(80), nullable=False),
        sa.Column("student_id", sa.String(64), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["learners.id"], name="fk_learner_profiles_learner_id_learners", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("learner_id", name="pk_learner_profiles"),
    )
    verdicts = op.create_table(
        "verdicts",
        sa.Column("submission_id", sa.String(36), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("first_failing_check", sa.String(200), nullable=True),
        sa.Column("regrade", sa.Boolean(), nullable=False),
        sa.Column("battery", sa.String(64), nullable=False),
        sa.Column("engine_version", sa.String(32), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("graded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["submission_id"], ["submissions.id"], name="fk_verdicts_submission_id_submissions", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("submission_id", name="pk_verdicts"),
    )
    op.create_index("ix_verdicts_problem_learner", "verdicts", ["problem", "learner_id", "graded_at"])
    failures = op.create_table(
        "check_failures",
        sa.Column("submission_id", sa.String(36), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("check_id", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("diagnosis", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["submissions.id"],
            name="fk_check_failures_submission_id_submissions",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("submission_id", "position", name="pk_check_failures"),
    )
    op.create_index("ix_check_failures_problem_diagnosis", "check_failures", ["problem", "diagnosis"])
    tallies = op.create_table(
        "check_tallies",
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("check_id", sa.String(200), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("problem", "check_id", "learner_id", name="pk_check_tallies"),
    )
    _backfill(verdicts, failures, tallies)


def _backfill(verdicts: sa.Table, failures: sa.Table, tallies: sa.Table) -> None:
    """Rows for every report stored before this migration. Which battery graded them was not recorded: the
    empty string, so `python -m app regrade` counts them as stale. Diagnoses were not recorded either."""
    connection = op.get_bind()
    rows = connection.execute(
        sa.text(
            "SELECT id, learner_id, problem, report, created_at, finished_at FROM submissions "
            "WHERE status IN ('done', 'error') AND report IS NOT NULL"
        )
    ).fetchall()
    tally: dict[tuple[str, str, str], list[int]] = {}  # (problem, check, learner) -> [position, attempts, failures]
    for start in range(0, len(rows), BACKFILL_BATCH):
        verdict_rows, failure_rows = [], []
        for row in rows[start : start + BACKFILL_BATCH]:
            report = json.loads(row.report)
            checks = report.get("checks") or []
            failing = [(position, c) for position, c in enumerate(checks) if c.get("status") in FAILING]
            verdict_rows.append({
                "submission_id": row.id, "learner_id": row.learner_id, "problem": row.problem,
                "solved": bool(report.get("solved")), "passed": sum(c.get("status") == "passed" for c in checks),
                "total": len(checks), "first_failing_check": failing[0][1]["id"] if failing else None,
                "regrade": False, "battery": "", "engine_version": "",
                "submitted_at": row.created_at, "graded_at": row.finished_at or row.created_at,
            })
            failure_rows.extend(
                {"submission_id": row.id, "position": position, "learner_id": row.learner_id,
                 "problem": row.problem, "check_id": c["id"], "status": c["status"], "diagnosis": None}
                for position, c in failing
            )
            for position, c in enumerate(checks):
                counts = tally.setdefault((row.problem, c["id"], row.learner_id), [position, 0, 0])
                counts[1] += 1
                counts[2] += c.get("status") in FAILING
        op.bulk_insert(verdicts, verdict_rows)
        if failure_rows:
            op.bulk_insert(failures, failure_rows)
    if tally:
        op.bulk_insert(tallies, [
            {"problem": problem, "check_id": check, "learner_id": learner, "position": position,
             "attempts": attempts, "failures": failed}
            for (problem, check, learner), (position, attempts, failed) in tally.items()
        ])


def downgrade() -> None:
    op.drop_table("check_tallies")
    op.drop_index("ix_check_failures_problem_diagnosis", table_name="check_failures")
    op.drop_table("check_failures")
    op.drop_index("ix_verdicts_problem_learner", table_name="verdicts")
    op.drop_table("verdicts")
    op.drop_table("learner_profiles")
    op.drop_index("ix_instructor_sessions_instructor_id", table_name="instructor_sessions")
    op.drop_table("instructor_sessions")
    op.drop_table("instructors")
