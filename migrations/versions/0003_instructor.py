"""The instructor side: instructor accounts and sessions, learner profiles, a row per verdict (`verdicts`)
and the tallies and roll-ups the dashboard reads, back-filled from the reports already stored.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
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
    tables = {
        "problem_learners": op.create_table(
            "problem_learners",
            sa.Column("problem", sa.String(64), nullable=False),
            sa.Column("learner_id", sa.String(36), nullable=False),
            sa.Column("attempts", sa.Integer(), nullable=False),
            sa.Column("first_submitted_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("last_submitted_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("attempts_to_solve", sa.Integer(), nullable=True),
            sa.Column("solved_submitted_at", sa.DateTime(timezone=True), nullable=True),
            sa.PrimaryKeyConstraint("problem", "learner_id", name="pk_problem_learners"),
        ),
        "check_tallies": op.create_table(
            "check_tallies",
            sa.Column("problem", sa.String(64), nullable=False),
            sa.Column("check_id", sa.String(200), nullable=False),
            sa.Column("learner_id", sa.String(36), nullable=False),
            sa.Column("attempts", sa.Integer(), nullable=False),
            sa.Column("failures", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("problem", "check_id", "learner_id", name="pk_check_tallies"),
        ),
        "check_rollups": op.create_table(
            "check_rollups",
            sa.Column("problem", sa.String(64), nullable=False),
            sa.Column("check_id", sa.String(200), nullable=False),
            sa.Column("position", sa.Integer(), nullable=False),
            sa.Column("attempts", sa.Integer(), nullable=False),
            sa.Column("failures", sa.Integer(), nullable=False),
            sa.Column("learners", sa.Integer(), nullable=False),
            sa.Column("learners_failed", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("problem", "check_id", name="pk_check_rollups"),
        ),
        "first_failure_rollups": op.create_table(
            "first_failure_rollups",
            sa.Column("problem", sa.String(64), nullable=False),
            sa.Column("check_id", sa.String(200), nullable=False),
            sa.Column("attempts", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("problem", "check_id", name="pk_first_failure_rollups"),
        ),
        "diagnosis_tallies": op.create_table(
            "diagnosis_tallies",
            sa.Column("problem", sa.String(64), nullable=False),
            sa.Column("check_id", sa.String(200), nullable=False),
            sa.Column("diagnosis", sa.String(500), nullable=False),
            sa.Column("learner_id", sa.String(36), nullable=False),
            sa.Column("times", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("problem", "check_id", "diagnosis", "learner_id", name="pk_diagnosis_tallies"),
        ),
        "diagnosis_rollups": op.create_table(
            "diagnosis_rollups",
            sa.Column("problem", sa.String(64), nullable=False),
            sa.Column("check_id", sa.String(200), nullable=False),
            sa.Column("diagnosis", sa.String(500), nullable=False),
            sa.Column("times", sa.Integer(), nullable=False),
            sa.Column("learners", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("problem", "check_id", "diagnosis", name="pk_diagnosis_rollups"),
        ),
    }
    op.create_table(
        "regrades",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("submission_id", sa.String(36), nullable=False),
        sa.Column("regrade_submission_id", sa.String(36), nullable=True),
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("from_battery", sa.String(64), nullable=False),
        sa.Column("to_battery", sa.String(64), nullable=False),
        sa.Column("old_passed", sa.Integer(), nullable=False),
        sa.Column("old_total", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"], name="fk_regrades_submission_id_submissions",
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["regrade_submission_id"], ["submissions.id"],
                                name="fk_regrades_regrade_submission_id_submissions", ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_regrades"),
        sa.UniqueConstraint("submission_id", "to_battery", name="uq_regrades_submission_battery"),
        sa.UniqueConstraint("regrade_submission_id", name="uq_regrades_regrade_submission_id"),
    )
    op.create_index("ix_regrades_status", "regrades", ["status"])
    op.create_index("ix_regrades_submission_id", "regrades", ["submission_id"])
    op.create_table(
        "check_reports",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("submission_id", sa.String(36), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("check_id", sa.String(200), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reply", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"],
                                name="fk_check_reports_submission_id_submissions", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_check_reports"),
        sa.UniqueConstraint("submission_id", "check_id", name="uq_check_reports_submission_check"),
    )
    op.create_index("ix_check_reports_status", "check_reports", ["status", "created_at"])
    _backfill(verdicts, tables)


def _backfill(verdicts: sa.Table, tables: dict[str, sa.Table]) -> None:
    """The rows app.instructor.records would have written for every report stored before this migration, in
    the order the submissions were made. Which battery graded them was not recorded (the empty string, so
    `python -m app regrade` counts them as stale), and neither were diagnoses."""
    rows = op.get_bind().execute(
        sa.text(
            "SELECT id, learner_id, problem, report, created_at, finished_at FROM submissions "
            "WHERE status IN ('done', 'error') AND report IS NOT NULL ORDER BY created_at"
        )
    ).fetchall()
    learners: dict[tuple[str, str], dict[str, object]] = {}
    tallies: dict[tuple[str, str, str], list[int]] = {}
    rollups: dict[tuple[str, str], list[int]] = {}  # -> [position, attempts, failures, learners, learners_failed]
    first: dict[tuple[str, str], int] = {}
    verdict_rows = []
    for row in rows:
        created_at, finished_at = _when(row.created_at), _when(row.finished_at)
        report = json.loads(row.report)
        checks = report.get("checks") or []
        failed = [c.get("status") in FAILING for c in checks]
        solved = bool(report.get("solved"))
        verdict_rows.append({
            "submission_id": row.id, "learner_id": row.learner_id, "problem": row.problem, "solved": solved,
            "passed": sum(c.get("status") == "passed" for c in checks), "total": len(checks),
            "first_failing_check": next((c["id"] for c, f in zip(checks, failed, strict=True) if f), None),
            "regrade": False, "battery": "", "engine_version": "", "submitted_at": created_at,
            "graded_at": finished_at or created_at,
        })
        learner = learners.setdefault((row.problem, row.learner_id), {
            "problem": row.problem, "learner_id": row.learner_id, "attempts": 0, "first_submitted_at": created_at,
            "last_submitted_at": created_at, "attempts_to_solve": None, "solved_submitted_at": None})
        learner["attempts"] = int(learner["attempts"]) + 1  # type: ignore[call-overload]
        learner["last_submitted_at"] = created_at
        if solved and learner["attempts_to_solve"] is None:
            learner["attempts_to_solve"], learner["solved_submitted_at"] = learner["attempts"], created_at
        if not checks:
            continue
        for position, (check, failure) in enumerate(zip(checks, failed, strict=True)):
            tally = tallies.setdefault((row.problem, check["id"], row.learner_id), [0, 0])
            tally[0] += 1
            tally[1] += failure
            rollup = rollups.setdefault((row.problem, check["id"]), [position, 0, 0, 0, 0])
            rollup[0] = position
            rollup[1] += 1
            rollup[2] += failure
            rollup[3] += tally[0] == 1
            rollup[4] += bool(failure and tally[1] == 1)
        key = (row.problem, next((c["id"] for c, f in zip(checks, failed, strict=True) if f), ""))
        first[key] = first.get(key, 0) + 1
    for start in range(0, len(verdict_rows), BACKFILL_BATCH):
        op.bulk_insert(verdicts, verdict_rows[start : start + BACKFILL_BATCH])
    _insert(tables["problem_learners"], list(learners.values()))
    _insert(tables["check_tallies"], [
        {"problem": p, "check_id": c, "learner_id": learner, "attempts": n, "failures": f}
        for (p, c, learner), (n, f) in tallies.items()])
    _insert(tables["check_rollups"], [
        {"problem": p, "check_id": c, "position": pos, "attempts": n, "failures": f, "learners": learners_n,
         "learners_failed": failed_n}
        for (p, c), (pos, n, f, learners_n, failed_n) in rollups.items()])
    _insert(tables["first_failure_rollups"], [
        {"problem": p, "check_id": c, "attempts": n} for (p, c), n in first.items()])


def _when(value: object) -> datetime | None:
    """A stored time as an aware datetime: a raw SELECT on SQLite hands back text, naive UTC."""
    if value is None:
        return None
    parsed = datetime.fromisoformat(value) if isinstance(value, str) else value
    assert isinstance(parsed, datetime)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _insert(table: sa.Table, rows: list[dict[str, object]]) -> None:
    for start in range(0, len(rows), BACKFILL_BATCH):
        op.bulk_insert(table, rows[start : start + BACKFILL_BATCH])


def downgrade() -> None:
    op.drop_index("ix_check_reports_status", table_name="check_reports")
    op.drop_table("check_reports")
    op.drop_index("ix_regrades_submission_id", table_name="regrades")
    op.drop_index("ix_regrades_status", table_name="regrades")
    op.drop_table("regrades")
    for table in ("diagnosis_rollups", "diagnosis_tallies", "first_failure_rollups", "check_rollups",
                  "check_tallies", "problem_learners"):
        op.drop_table(table)
    op.drop_index("ix_verdicts_problem_learner", table_name="verdicts")
    op.drop_table("verdicts")
    op.drop_table("learner_profiles")
    op.drop_index("ix_instructor_sessions_instructor_id", table_name="instructor_sessions")
    op.drop_table("instructor_sessions")
    op.drop_table("instructors")
