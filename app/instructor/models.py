"""The instructor side's tables: instructor accounts and their sessions, learners' display names, and every
graded verdict broken into rows (one per submission, one per check) so that the dashboard aggregates in SQL
instead of parsing report JSON.

Kept beside `app.models` (same `Base`, same naming convention) so that migrations/versions/0003 and the test
that compares migrations with models see them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.models import Base, UTCDateTime, new_id, utcnow


class Instructor(Base):
    """An account an operator made with `python -m app instructor add`; the password only as an argon2 hash."""

    __tablename__ = "instructors"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    email: Mapped[str] = mapped_column(String(254), unique=True, doc="Lower-cased on the way in.")
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class InstructorSession(Base):
    """A signed-in browser. The cookie carries a random token; only its SHA-256 is stored, so a copy of the
    database signs nobody in."""

    __tablename__ = "instructor_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    instructor_id: Mapped[str] = mapped_column(ForeignKey("instructors.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64), doc="Every form of this session carries it.")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LearnerProfile(Base):
    """What a learner chose to tell their instructors: a display name and, optionally, a student id."""

    __tablename__ = "learner_profiles"

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(80))
    student_id: Mapped[str | None] = mapped_column(String(64), default=None)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Verdict(Base):
    """One graded submission, as numbers: written in the transaction that stores the report."""

    __tablename__ = "verdicts"
    __table_args__ = (Index("ix_verdicts_problem_learner", "problem", "learner_id", "graded_at"),)

    submission_id: Mapped[str] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True
    )
    learner_id: Mapped[str] = mapped_column(String(36))
    problem: Mapped[str] = mapped_column(String(64))
    solved: Mapped[bool] = mapped_column(Boolean)
    passed: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    first_failing_check: Mapped[str | None] = mapped_column(String(200), default=None)
    regrade: Mapped[bool] = mapped_column(Boolean, default=False, doc="A re-grading, not a learner's attempt.")
    battery: Mapped[str] = mapped_column(String(64), doc="Content hash of the graded parts of the problem folder.")
    engine_version: Mapped[str] = mapped_column(String(32))
    submitted_at: Mapped[datetime] = mapped_column(UTCDateTime())
    graded_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


# The dashboard's numbers, kept up to date as each verdict is stored (app.instructor.records), so that a
# problem's statistics read tens of rows, not 100,000 verdicts: at that size even grouped scans of the verdict
# rows took 0.5 s on a 2-core machine, against a 200 ms budget for the whole request. Two levels: a row per
# learner (which tells whether a learner is new to a check, or failing it for the first time) and a roll-up per
# problem that the statistics read.


class ProblemLearner(Base):
    """One learner's attempts at one problem, and where they stood when they first solved it."""

    __tablename__ = "problem_learners"

    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    learner_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    attempts: Mapped[int] = mapped_column(Integer)
    first_submitted_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_submitted_at: Mapped[datetime] = mapped_column(UTCDateTime())
    attempts_to_solve: Mapped[int | None] = mapped_column(Integer, default=None)
    solved_submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class CheckTally(Base):
    """How often one learner's attempts ran, and failed, one check."""

    __tablename__ = "check_tallies"

    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    check_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    learner_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    attempts: Mapped[int] = mapped_column(Integer)
    failures: Mapped[int] = mapped_column(Integer)


class CheckRollup(Base):
    """One check of one problem over every learner: attempts and learners, and how many of each failed it."""

    __tablename__ = "check_rollups"

    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    check_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, doc="Where the check came in the battery, for ties.")
    attempts: Mapped[int] = mapped_column(Integer)
    failures: Mapped[int] = mapped_column(Integer)
    learners: Mapped[int] = mapped_column(Integer)
    learners_failed: Mapped[int] = mapped_column(Integer)


class FirstFailureRollup(Base):
    """Attempts whose first failing check was this one ('' for attempts that failed none)."""

    __tablename__ = "first_failure_rollups"

    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    check_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    attempts: Mapped[int] = mapped_column(Integer)


class DiagnosisTally(Base):
    """How often a known mistake was diagnosed on one check for one learner."""

    __tablename__ = "diagnosis_tallies"

    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    check_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    diagnosis: Mapped[str] = mapped_column(String(500), primary_key=True)
    learner_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    times: Mapped[int] = mapped_column(Integer)


class DiagnosisRollup(Base):
    """A known mistake diagnosed on one check, over every learner."""

    __tablename__ = "diagnosis_rollups"

    problem: Mapped[str] = mapped_column(String(64), primary_key=True)
    check_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    diagnosis: Mapped[str] = mapped_column(String(500), primary_key=True)
    times: Mapped[int] = mapped_column(Integer)
    learners: Mapped[int] = mapped_column(Integer)


class Regrade(Base):
    """One attempt graded again because its problem's battery changed. The attempt and its report stay as they
    were; the regrading is a submission of its own (same learner, same code) graded by the normal path, and
    this row links the two. Unique per attempt and battery: planning twice plans nothing twice."""

    __tablename__ = "regrades"
    __table_args__ = (
        UniqueConstraint("submission_id", "to_battery", name="uq_regrades_submission_battery"),
        Index("ix_regrades_status", "status"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    regrade_submission_id: Mapped[str | None] = mapped_column(
        ForeignKey("submissions.id", ondelete="SET NULL"), default=None, unique=True
    )
    learner_id: Mapped[str] = mapped_column(String(36))
    problem: Mapped[str] = mapped_column(String(64))
    from_battery: Mapped[str] = mapped_column(String(64))
    to_battery: Mapped[str] = mapped_column(String(64))
    old_passed: Mapped[int] = mapped_column(Integer)
    old_total: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="pending", doc="pending, queued or done.")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class CheckReport(Base):
    """A learner's "Report this check" on a check their attempt failed, and the instructor's reply."""

    __tablename__ = "check_reports"
    __table_args__ = (
        UniqueConstraint("submission_id", "check_id", name="uq_check_reports_submission_check"),
        Index("ix_check_reports_status", "status", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    learner_id: Mapped[str] = mapped_column(String(36))
    problem: Mapped[str] = mapped_column(String(64))
    check_id: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="open", doc="open or resolved.")
    reply: Mapped[str | None] = mapped_column(Text, default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    reply_seen_at: Mapped[datetime | None] = mapped_column(
        UTCDateTime(), default=None, doc="When the learner first saw the reply (the badge counts unseen ones)."
    )
