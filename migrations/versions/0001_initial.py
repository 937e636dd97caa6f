"""Initial schema: learners, submissions, solved.

Revision ID: 0001
Revises:
Create Date: 2025-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IN_FLIGHT = sa.text("status IN ('queued', 'running')")


def upgrade() -> None:
    op.create_table(
        "learners",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_learners"),
    )
    op.create_table(
        "submissions",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("report", sa.Text(), nullable=True),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("checks_passed", sa.Integer(), nullable=True),
        sa.Column("checks_total", sa.Integer(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('queued', 'running', 'done', 'error')", name="ck_submissions_status"),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["learners.id"], name="fk_submissions_learner_id_learners", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_submissions"),
    )
    op.create_index(
        "ix_submissions_learner_problem_created", "submissions", ["learner_id", "problem", "created_at"]
    )
    op.create_index("ix_submissions_status", "submissions", ["status"])
    op.create_index(
        "uq_submissions_one_in_flight_per_learner",
        "submissions",
        ["learner_id"],
        unique=True,
        sqlite_where=IN_FLIGHT,
        postgresql_where=IN_FLIGHT,
    )
    op.create_table(
        "solved",
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("submission_id", sa.String(36), nullable=False),
        sa.Column("solved_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["learners.id"], name="fk_solved_learner_id_learners", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["submissions.id"],
            name="fk_solved_submission_id_submissions",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("learner_id", "problem", name="pk_solved"),
    )


def downgrade() -> None:
    op.drop_table("solved")
    op.drop_index("uq_submissions_one_in_flight_per_learner", table_name="submissions")
    op.drop_index("ix_submissions_status", table_name="submissions")
    op.drop_index("ix_submissions_learner_problem_created", table_name="submissions")
    op.drop_table("submissions")
    op.drop_table("learners")
