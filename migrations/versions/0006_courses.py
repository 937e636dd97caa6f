"""Courses (instructors, assignments and their problems, members, extensions, grade overrides, the audit log),
learner accounts, and LTI 1.3 (platforms, deployments, the tool's keys, OIDC states, launches, users, contexts,
resource links, grade targets and the score outbox). New tables only: nothing stored before changes.

Revision ID: 0006_courses
Revises: 0005_established
Create Date: 2026-12-08
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_courses"
down_revision: str | None = "0005_established"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, *, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _fk(table: str, column: str, target: str, *, ondelete: str = "CASCADE") -> sa.ForeignKeyConstraint:
    referred = target.split(".")[0]
    return sa.ForeignKeyConstraint([column], [target], name=f"fk_{table}_{column}_{referred}", ondelete=ondelete)


def upgrade() -> None:
    _courses()
    _lti()


def _courses() -> None:
    op.create_table(
        "courses",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("join_code", sa.String(16), nullable=False),
        sa.Column("time_zone", sa.String(64), nullable=False),
        _when("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_courses"),
        sa.UniqueConstraint("join_code", name="uq_courses_join_code"),
    )
    op.create_table(
        "course_instructors",
        sa.Column("course_id", sa.String(36), nullable=False),
        sa.Column("instructor_id", sa.String(36), nullable=False),
        _when("added_at"),
        _fk("course_instructors", "course_id", "courses.id"),
        _fk("course_instructors", "instructor_id", "instructors.id"),
        sa.PrimaryKeyConstraint("course_id", "instructor_id", name="pk_course_instructors"),
    )
    op.create_index("ix_course_instructors_instructor_id", "course_instructors", ["instructor_id"])
    op.create_table(
        "assignments",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("course_id", sa.String(36), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        _when("opens_at"),
        _when("due_at"),
        sa.Column("late_policy", sa.String(16), nullable=False),
        sa.Column("penalty_percent", sa.Integer(), nullable=False),
        sa.Column("floor_percent", sa.Integer(), nullable=False),
        _when("created_at"),
        sa.CheckConstraint("due_at > opens_at", name="ck_assignments_due_after_open"),
        sa.CheckConstraint("late_policy IN ('none', 'penalty')", name="ck_assignments_late_policy"),
        sa.CheckConstraint("penalty_percent >= 0 AND penalty_percent <= 100", name="ck_assignments_penalty_percent"),
        sa.CheckConstraint("floor_percent >= 0 AND floor_percent <= 100", name="ck_assignments_floor_percent"),
        _fk("assignments", "course_id", "courses.id"),
        sa.PrimaryKeyConstraint("id", name="pk_assignments"),
    )
    op.create_index("ix_assignments_course_position", "assignments", ["course_id", "position"])
    op.create_table(
        "assignment_problems",
        sa.Column("assignment_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        _fk("assignment_problems", "assignment_id", "assignments.id"),
        sa.PrimaryKeyConstraint("assignment_id", "problem", name="pk_assignment_problems"),
    )
    op.create_table(
        "course_members",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("course_id", sa.String(36), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("student_id", sa.String(64), nullable=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("source", sa.String(16), nullable=False),
        _when("joined_at", nullable=True),
        _when("created_at"),
        sa.CheckConstraint("source IN ('roster', 'code', 'lti')", name="ck_course_members_source"),
        _fk("course_members", "course_id", "courses.id"),
        _fk("course_members", "learner_id", "learners.id", ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_course_members"),
        sa.UniqueConstraint("course_id", "learner_id", name="uq_course_members_course_learner"),
        sa.UniqueConstraint("course_id", "student_id", name="uq_course_members_course_student"),
        sa.UniqueConstraint("course_id", "email", name="uq_course_members_course_email"),
    )
    op.create_index("ix_course_members_course_id", "course_members", ["course_id"])
    op.create_index("ix_course_members_learner_id", "course_members", ["learner_id"])
    op.create_table(
        "extensions",
        sa.Column("assignment_id", sa.String(36), nullable=False),
        sa.Column("member_id", sa.String(36), nullable=False),
        _when("due_at"),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("granted_by", sa.String(254), nullable=False),
        _when("granted_at"),
        _fk("extensions", "assignment_id", "assignments.id"),
        _fk("extensions", "member_id", "course_members.id"),
        sa.PrimaryKeyConstraint("assignment_id", "member_id", name="pk_extensions"),
    )
    op.create_table(
        "grade_overrides",
        sa.Column("assignment_id", sa.String(36), nullable=False),
        sa.Column("member_id", sa.String(36), nullable=False),
        sa.Column("problem", sa.String(64), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("author", sa.String(254), nullable=False),
        _when("created_at"),
        sa.CheckConstraint("score >= 0 AND score <= 100", name="ck_grade_overrides_score"),
        _fk("grade_overrides", "assignment_id", "assignments.id"),
        _fk("grade_overrides", "member_id", "course_members.id"),
        sa.PrimaryKeyConstraint("assignment_id", "member_id", "problem", name="pk_grade_overrides"),
    )
    op.create_table(
        "course_audit",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("course_id", sa.String(36), nullable=False),
        _when("at"),
        sa.Column("actor", sa.String(254), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        _fk("course_audit", "course_id", "courses.id"),
        sa.PrimaryKeyConstraint("id", name="pk_course_audit"),
    )
    op.create_index("ix_course_audit_course_at", "course_audit", ["course_id", "at"])
    op.create_table(
        "learner_accounts",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=False),
        _when("created_at"),
        _fk("learner_accounts", "learner_id", "learners.id"),
        sa.PrimaryKeyConstraint("id", name="pk_learner_accounts"),
        sa.UniqueConstraint("email", name="uq_learner_accounts_email"),
        sa.UniqueConstraint("learner_id", name="uq_learner_accounts_learner_id"),
    )


def _lti() -> None:
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("auth_login_url", sa.String(1000), nullable=False),
        sa.Column("auth_token_url", sa.String(1000), nullable=False),
        sa.Column("key_set_url", sa.String(1000), nullable=False),
        sa.Column("auth_audience", sa.String(1000), nullable=True),
        _when("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_lti_platforms"),
        sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("platform_id", sa.String(36), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        _fk("lti_deployments", "platform_id", "lti_platforms.id"),
        sa.PrimaryKeyConstraint("platform_id", "deployment_id", name="pk_lti_deployments"),
    )
    op.create_table(
        "lti_keys",
        sa.Column("kid", sa.String(64), nullable=False),
        sa.Column("private_key", sa.Text(), nullable=False),
        sa.Column("public_jwk", sa.Text(), nullable=False),
        _when("created_at"),
        _when("retire_at", nullable=True),
        sa.PrimaryKeyConstraint("kid", name="pk_lti_keys"),
    )
    op.create_table(
        "lti_states",
        sa.Column("state", sa.String(128), nullable=False),
        sa.Column("nonce", sa.String(128), nullable=False),
        sa.Column("platform_id", sa.String(36), nullable=False),
        _when("created_at"),
        _when("expires_at"),
        _when("used_at", nullable=True),
        _fk("lti_states", "platform_id", "lti_platforms.id"),
        sa.PrimaryKeyConstraint("state", name="pk_lti_states"),
        sa.UniqueConstraint("nonce", name="uq_lti_states_nonce"),
    )
    op.create_index("ix_lti_states_expires_at", "lti_states", ["expires_at"])
    op.create_table(
        "lti_launches",
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("platform_id", sa.String(36), nullable=False),
        sa.Column("claims", sa.Text(), nullable=False),
        sa.Column("instructor_id", sa.String(36), nullable=True),
        _when("created_at"),
        _when("expires_at"),
        _fk("lti_launches", "platform_id", "lti_platforms.id"),
        _fk("lti_launches", "instructor_id", "instructors.id"),
        sa.PrimaryKeyConstraint("id", name="pk_lti_launches"),
    )
    op.create_index("ix_lti_launches_expires_at", "lti_launches", ["expires_at"])
    op.create_table(
        "lti_users",
        sa.Column("platform_id", sa.String(36), nullable=False),
        sa.Column("sub", sa.String(255), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=True),
        sa.Column("instructor_id", sa.String(36), nullable=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("email", sa.String(254), nullable=True),
        _when("updated_at"),
        _fk("lti_users", "platform_id", "lti_platforms.id"),
        _fk("lti_users", "learner_id", "learners.id"),
        _fk("lti_users", "instructor_id", "instructors.id"),
        sa.PrimaryKeyConstraint("platform_id", "sub", name="pk_lti_users"),
    )
    op.create_index("ix_lti_users_learner_id", "lti_users", ["learner_id"])
    op.create_table(
        "lti_contexts",
        sa.Column("platform_id", sa.String(36), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("course_id", sa.String(36), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("memberships_url", sa.String(1000), nullable=True),
        _when("synced_at", nullable=True),
        _fk("lti_contexts", "platform_id", "lti_platforms.id"),
        _fk("lti_contexts", "course_id", "courses.id"),
        sa.PrimaryKeyConstraint("platform_id", "context_id", name="pk_lti_contexts"),
    )
    op.create_index("ix_lti_contexts_course_id", "lti_contexts", ["course_id"])
    op.create_table(
        "lti_resource_links",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("platform_id", sa.String(36), nullable=False),
        sa.Column("resource_link_id", sa.String(255), nullable=False),
        sa.Column("course_id", sa.String(36), nullable=False),
        sa.Column("assignment_id", sa.String(36), nullable=True),
        sa.Column("problem", sa.String(64), nullable=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("lineitem_url", sa.String(1000), nullable=True),
        sa.Column("lineitems_url", sa.String(1000), nullable=True),
        sa.Column("ags_scopes", sa.Text(), nullable=False),
        _when("created_at"),
        _fk("lti_resource_links", "platform_id", "lti_platforms.id"),
        _fk("lti_resource_links", "course_id", "courses.id"),
        _fk("lti_resource_links", "assignment_id", "assignments.id", ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_lti_resource_links"),
        sa.UniqueConstraint("platform_id", "resource_link_id", name="uq_lti_resource_links_platform_link"),
    )
    op.create_index("ix_lti_resource_links_course_id", "lti_resource_links", ["course_id"])
    op.create_table(
        "lti_grade_targets",
        sa.Column("link_id", sa.String(36), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("sub", sa.String(255), nullable=False),
        _fk("lti_grade_targets", "link_id", "lti_resource_links.id"),
        _fk("lti_grade_targets", "learner_id", "learners.id"),
        sa.PrimaryKeyConstraint("link_id", "learner_id", name="pk_lti_grade_targets"),
    )
    op.create_index("ix_lti_grade_targets_learner_id", "lti_grade_targets", ["learner_id"])
    op.create_table(
        "lti_scores",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("link_id", sa.String(36), nullable=False),
        sa.Column("learner_id", sa.String(36), nullable=False),
        sa.Column("cause", sa.String(120), nullable=False),
        sa.Column("score_given", sa.Float(), nullable=False),
        sa.Column("score_maximum", sa.Float(), nullable=False),
        sa.Column("activity_progress", sa.String(16), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        _when("timestamp"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        _when("next_attempt_at"),
        _when("claimed_until", nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("response_status", sa.Integer(), nullable=True),
        _when("sent_at", nullable=True),
        _when("created_at"),
        sa.CheckConstraint("status IN ('pending', 'sent', 'failed', 'superseded')", name="ck_lti_scores_status"),
        _fk("lti_scores", "link_id", "lti_resource_links.id"),
        _fk("lti_scores", "learner_id", "learners.id"),
        sa.PrimaryKeyConstraint("id", name="pk_lti_scores"),
        sa.UniqueConstraint("link_id", "learner_id", "cause", name="uq_lti_scores_link_learner_cause"),
    )
    op.create_index("ix_lti_scores_status_next", "lti_scores", ["status", "next_attempt_at"])


def downgrade() -> None:
    for index, table in [
        ("ix_lti_scores_status_next", "lti_scores"),
        ("ix_lti_grade_targets_learner_id", "lti_grade_targets"),
        ("ix_lti_resource_links_course_id", "lti_resource_links"),
        ("ix_lti_contexts_course_id", "lti_contexts"),
        ("ix_lti_users_learner_id", "lti_users"),
        ("ix_lti_launches_expires_at", "lti_launches"),
        ("ix_lti_states_expires_at", "lti_states"),
        ("ix_course_audit_course_at", "course_audit"),
        ("ix_course_members_learner_id", "course_members"),
        ("ix_course_members_course_id", "course_members"),
        ("ix_assignments_course_position", "assignments"),
        ("ix_course_instructors_instructor_id", "course_instructors"),
    ]:
        op.drop_index(index, table_name=table)
    for table in ["lti_scores", "lti_grade_targets", "lti_resource_links", "lti_contexts", "lti_users",
                  "lti_launches", "lti_states", "lti_keys", "lti_deployments", "lti_platforms",
                  "learner_accounts", "course_audit", "grade_overrides", "extensions", "course_members",
                  "assignment_problems", "assignments", "course_instructors", "courses"]:
        op.drop_table(table)
