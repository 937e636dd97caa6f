"""The learner's side: hints opened on request, solutions revealed, links to continue on another device.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "hint_unlocks",
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("hint_index", sa.Integer(), nullable=False),
        sa.Column("unlocked_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["learners.id"], name="fk_hint_unlocks_learner_id_learners", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("learner_id", "problem", "hint_index", name="pk_hint_unlocks"),
    )
    op.create_table(
        "solution_reveals",
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("failed_attempts", sa.Integer(), nullable=False),
        sa.Column("revealed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["learners.id"], name="fk_solution_reveals_learner_id_learners", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("learner_id", "problem", name="pk_solution_reveals"),
    )
    op.create_table(
        "device_links",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["learners.id"], name="fk_device_links_learner_id_learners", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_device_links"),
    )
    op.create_index("ix_device_links_learner_id", "device_links", ["learner_id"])


def downgrade() -> None:
    op.drop_index("ix_device_links_learner_id", table_name="device_links")
    op.drop_table("device_links")
    op.drop_table("solution_reveals")
    op.drop_table("hint_unlocks")
