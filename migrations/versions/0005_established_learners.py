"""Established learners: when the per-address limits stopped counting a learner, and why (app.trust).

Revision ID: 0004_established
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_established"
down_revision: str | None = "0004_api_tokens"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable, no default: existing learners start fresh and earn it on their next submission (app.trust).
    with op.batch_alter_table("learners", recreate="never") as batch:
        batch.add_column(sa.Column("established_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("established_by", sa.String(32), nullable=True))


def downgrade() -> None:
    # Never rebuild `learners` on SQLite: with foreign keys on, dropping the old table would cascade to every
    # learner's submissions. SQLite 3.35+ drops a column in place.
    with op.batch_alter_table("learners", recreate="never") as batch:
        batch.drop_column("established_by")
        batch.drop_column("established_at")
