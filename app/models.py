"""Tables: learners, their submissions (code, status, report JSON, timings) and what they have solved.

Only migrations (migrations/versions) create or change the schema; a test proves they match the models. The
instructor side's tables, the courses' and LTI's live in their own modules, which import this one; app.tables
imports them all, and is what sees every table (migrations, the test that compares them).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import (
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    false,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SubmissionStatus = Literal["queued", "running", "done", "error"]
IN_FLIGHT: tuple[SubmissionStatus, ...] = ("queued", "running")
FINISHED: tuple[SubmissionStatus, ...] = ("done", "error")

# Named constraints, so later migrations (SQLite batch mode included) can refer to them by name.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return str(uuid.uuid4())


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC on the way in and out; SQLite stores naive values and would hand them back naive."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime; use app.models.utcnow()")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        aware: datetime = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return aware


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Learner(Base):
    """An anonymous learner, identified by a signed cookie that carries this id."""

    __tablename__ = "learners"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, doc="First seen.")
    established_at: Mapped[datetime | None] = mapped_column(
        UTCDateTime(), default=None, doc="When the per-address limits stopped counting this learner (app.trust)."
    )
    established_by: Mapped[str | None] = mapped_column(
        String(32), default=None, doc="Why: 'graded-work' when earned, else what vouched for them."
    )


class Submission(Base):
    """One run of a learner's code against a problem: stored as `queued` before anything grades it."""

    __tablename__ = "submissions"
    __table_args__ = (
        CheckConstraint("status IN ('queued', 'running', 'done', 'error')", name="status"),
        Index("ix_submissions_learner_problem_created", "learner_id", "problem", "created_at"),
        Index("ix_submissions_status", "status"),
        # At most one submission in flight per learner, enforced by the database so that two web processes
        # racing on the same learner cannot both accept one (a partial index: SQLite and PostgreSQL).
        Index(
            "uq_submissions_one_in_flight_per_learner",
            "learner_id",
            unique=True,
            sqlite_where=text("status IN ('queued', 'running')"),
            postgresql_where=text("status IN ('queued', 'running')"),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    problem: Mapped[str] = mapped_column(String(64))
    code: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    report: Mapped[str | None] = mapped_column(Text, default=None, doc="The grader's Report as JSON.")
    solved: Mapped[bool] = mapped_column(default=False)
    checks_passed: Mapped[int | None] = mapped_column(Integer, default=None)
    checks_total: Mapped[int | None] = mapped_column(Integer, default=None)
    attempts: Mapped[int] = mapped_column(Integer, default=0, doc="Times a grader started on it.")
    stopped: Mapped[bool] = mapped_column(
        default=False, server_default=false(), doc="The learner stopped its grading: not a failed attempt."
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class Solved(Base):
    """The first submission with which a learner solved a problem; its existence unlocks the notes."""

    __tablename__ = "solved"

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    solved_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


# ---------------------------------------------------------------- the learner's side: hints and solutions


class HintUnlock(Base):
    """A hint the learner opened on request, before their failed attempts unlocked it (hints unlocked by
    attempts need no row: they follow from the submissions)."""

    __tablename__ = "hint_unlocks"

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    hint_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    unlocked_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class SolutionReveal(Base):
    """The learner gave up and read the reference solution; a later solve is marked "after reveal"."""

    __tablename__ = "solution_reveals"

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    failed_attempts: Mapped[int] = mapped_column(Integer, doc="Failed attempts when the learner gave up.")
    revealed_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class DeviceLink(Base):
    """A "continue on another device" link: the browser that opens it (and confirms) becomes this learner.
    Single-use, expiring, revocable; the link carries a signed id, never the learner's id or cookie."""

    __tablename__ = "device_links"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class ApiToken(Base):
    """A personal API token: the `paperlab` command or a notebook acts as this learner with it (app.api_tokens).
    Only the token's SHA-256 is stored; the token itself is shown once, when it is made. Revoked tokens keep
    their row, so that using one is answered "revoked" rather than "unknown"."""

    __tablename__ = "api_tokens"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(60), doc="The learner's label for it (\"laptop\", \"Colab\").")
    prefix: Mapped[str] = mapped_column(String(16), doc="The token's first characters, to tell tokens apart.")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)

