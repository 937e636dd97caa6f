"""Courses' tables: courses and the instructors who share them, assignments (ordered problems with an open and a
due time and a late policy), the members of a course (roster rows, joined or not), per-learner extensions,
per-cell grade overrides, the audit log, and optional learner accounts.

A member row is both the roster and the enrolment: imported from a roster CSV it has no learner yet ("not yet
joined"); a learner who joins with the code claims the row whose student id or email they give, or gets a row of
their own; a learner who arrives through LTI is matched by the platform's email or student id. The gradebook's
rows are a course's member rows.

Kept beside `app.models` (same `Base`, same naming convention) so that migration 0006_courses and the test that
compares migrations with models see them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.instructor import models as _instructor_tables  # noqa: F401 - registers `instructors`, which a key names
from app.models import Base, UTCDateTime, new_id, utcnow

LATE_POLICIES = ("none", "penalty")
MEMBER_SOURCES = ("roster", "code", "lti")


class Course(Base):
    __tablename__ = "courses"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    title: Mapped[str] = mapped_column(String(200))
    join_code: Mapped[str] = mapped_column(String(16), unique=True, doc="What learners type to join; rotatable.")
    time_zone: Mapped[str] = mapped_column(String(64), default="UTC",
                                           doc="IANA zone instructors enter the course's times in.")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class CourseInstructor(Base):
    """An instructor who runs a course; every instructor of a course has the same rights over it."""

    __tablename__ = "course_instructors"

    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    instructor_id: Mapped[str] = mapped_column(ForeignKey("instructors.id", ondelete="CASCADE"), primary_key=True,
                                               index=True)
    added_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Assignment(Base):
    """An ordered set of problems with an open time, a due time and a late policy: `none` (work solved after
    the due time earns nothing, and is still recorded as late) or `penalty` (`penalty_percent` off per started
    day late, never below `floor_percent`)."""

    __tablename__ = "assignments"
    __table_args__ = (
        CheckConstraint("due_at > opens_at", name="due_after_open"),
        CheckConstraint("late_policy IN ('none', 'penalty')", name="late_policy"),
        CheckConstraint("penalty_percent >= 0 AND penalty_percent <= 100", name="penalty_percent"),
        CheckConstraint("floor_percent >= 0 AND floor_percent <= 100", name="floor_percent"),
        Index("ix_assignments_course_position", "course_id", "position"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(200))
    position: Mapped[int] = mapped_column(Integer, default=0)
    opens_at: Mapped[datetime] = mapped_column(UTCDateTime())
    due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    late_policy: Mapped[str] = mapped_column(String(16), default="none")
    penalty_percent: Mapped[int] = mapped_column(Integer, default=0, doc="Taken off per started day late.")
    floor_percent: Mapped[int] = mapped_column(Integer, default=0, doc="The least a late solve can score.")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class AssignmentProblem(Base):
    __tablename__ = "assignment_problems"

    assignment_id: Mapped[str] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)


class CourseMember(Base):
    """One row of a course's roster: imported (`learner_id` empty until they join), or made when a learner
    joined with the code or came through LTI."""

    __tablename__ = "course_members"
    __table_args__ = (
        UniqueConstraint("course_id", "learner_id", name="uq_course_members_course_learner"),
        UniqueConstraint("course_id", "student_id", name="uq_course_members_course_student"),
        UniqueConstraint("course_id", "email", name="uq_course_members_course_email"),
        CheckConstraint("source IN ('roster', 'code', 'lti')", name="source"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    learner_id: Mapped[str | None] = mapped_column(ForeignKey("learners.id", ondelete="SET NULL"), default=None,
                                                   index=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    student_id: Mapped[str | None] = mapped_column(String(64), default=None)
    email: Mapped[str | None] = mapped_column(String(254), default=None, doc="Lower-cased on the way in.")
    source: Mapped[str] = mapped_column(String(16), default="roster")
    joined_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Extension(Base):
    """A later due time for one member on one assignment, with the reason it was given."""

    __tablename__ = "extensions"

    assignment_id: Mapped[str] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    member_id: Mapped[str] = mapped_column(ForeignKey("course_members.id", ondelete="CASCADE"), primary_key=True)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    reason: Mapped[str] = mapped_column(Text)
    granted_by: Mapped[str] = mapped_column(String(254), doc="The instructor's email, kept if the account goes.")
    granted_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class GradeOverride(Base):
    """An instructor's score for one gradebook cell, replacing what the policy computed."""

    __tablename__ = "grade_overrides"
    __table_args__ = (CheckConstraint("score >= 0 AND score <= 100", name="score"),)

    assignment_id: Mapped[str] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    member_id: Mapped[str] = mapped_column(ForeignKey("course_members.id", ondelete="CASCADE"), primary_key=True)
    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    score: Mapped[float] = mapped_column(Float, doc="Percent of the problem's point.")
    reason: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class AuditEntry(Base):
    """Something an instructor (or the platform, through LTI) changed in a course: who, when, what, why."""

    __tablename__ = "course_audit"
    __table_args__ = (Index("ix_course_audit_course_at", "course_id", "at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    actor: Mapped[str] = mapped_column(String(254))
    action: Mapped[str] = mapped_column(String(64))
    summary: Mapped[str] = mapped_column(Text, doc="One sentence a person reads.")
    detail: Mapped[str] = mapped_column(Text, default="{}", doc="The facts as JSON (before/after, reason).")


class LearnerAccount(Base):
    """An optional learner account: an email and an argon2id password hash, bound to one learner id (the one
    the browser had when the account was made, so that its history comes along)."""

    __tablename__ = "learner_accounts"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
