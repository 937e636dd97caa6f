"""LTI 1.3 tables: the platforms an operator registered and their deployments, the tool's own RSA keys, the
OIDC states of launches in progress, launches kept for deep linking, who a platform's users are here, which
platform course maps to which PaperLab course, which resource link opens what, and every score sent back.

The score outbox (`lti_scores`) is the idempotent record of what was sent: one row per cause (a verdict, an
override, an extension) and link and learner, claimed by one sender at a time, retried with back-off, and
marked sent with the platform's answer; a newer score for the same line item and learner supersedes one not
yet sent."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.courses import models as _course_tables  # noqa: F401 - registers `courses`, `assignments`, `instructors`
from app.models import Base, UTCDateTime, new_id, utcnow

SCORE_STATUSES = ("pending", "sent", "failed", "superseded")


class LtiPlatform(Base):
    """One registration of PaperLab in an LMS: its issuer and the client id it gave us, and its endpoints."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    title: Mapped[str] = mapped_column(String(200))
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_login_url: Mapped[str] = mapped_column(String(1000), doc="The platform's OIDC authorization endpoint.")
    auth_token_url: Mapped[str] = mapped_column(String(1000), doc="Its OAuth 2 token endpoint (for services).")
    key_set_url: Mapped[str] = mapped_column(String(1000), doc="Its JWKS, which signs the id_tokens.")
    auth_audience: Mapped[str | None] = mapped_column(String(1000), default=None,
                                                      doc="The token endpoint's audience, if not its URL.")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiDeployment(Base):
    __tablename__ = "lti_deployments"

    platform_id: Mapped[str] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True)
    deployment_id: Mapped[str] = mapped_column(String(255), primary_key=True)


class LtiKey(Base):
    """One of the tool's RSA key pairs. The newest signs; older ones stay in the JWKS until `retire_at`, so
    that a platform which cached the key set can still check what they signed."""

    __tablename__ = "lti_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    private_key: Mapped[str] = mapped_column(Text, doc="PEM, encrypted with a key derived from the site's secret.")
    public_jwk: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    retire_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None,
                                                       doc="Set when a newer key takes over; then unpublished.")


class LtiState(Base):
    """An OIDC login in progress: the state handed to the platform and the nonce its id_token must carry."""

    __tablename__ = "lti_states"

    state: Mapped[str] = mapped_column(String(128), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(128), unique=True)
    platform_id: Mapped[str] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class LtiLaunch(Base):
    """A validated launch's claims, kept a while for what follows it (the deep-linking response)."""

    __tablename__ = "lti_launches"

    id: Mapped[str] = mapped_column(String(128), primary_key=True)
    platform_id: Mapped[str] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    claims: Mapped[str] = mapped_column(Text)
    instructor_id: Mapped[str | None] = mapped_column(ForeignKey("instructors.id", ondelete="CASCADE"),
                                                      default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class LtiUser(Base):
    """A platform's user (`sub`) as PaperLab knows them: a learner, an instructor, or both."""

    __tablename__ = "lti_users"

    platform_id: Mapped[str] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True)
    sub: Mapped[str] = mapped_column(String(255), primary_key=True)
    learner_id: Mapped[str | None] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), default=None,
                                                   index=True)
    instructor_id: Mapped[str | None] = mapped_column(ForeignKey("instructors.id", ondelete="CASCADE"),
                                                      default=None)
    name: Mapped[str] = mapped_column(String(200), default="")
    email: Mapped[str | None] = mapped_column(String(254), default=None)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiContext(Base):
    """A platform's course (its `context`), mapped to a PaperLab course, with its roster service if offered."""

    __tablename__ = "lti_contexts"

    platform_id: Mapped[str] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True)
    context_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(200), default="")
    memberships_url: Mapped[str | None] = mapped_column(String(1000), default=None)
    synced_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class LtiResourceLink(Base):
    """A link placed in the platform's course: it opens an assignment or a single problem, and its line item
    is where scores go."""

    __tablename__ = "lti_resource_links"
    __table_args__ = (
        UniqueConstraint("platform_id", "resource_link_id", name="uq_lti_resource_links_platform_link"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    platform_id: Mapped[str] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    resource_link_id: Mapped[str] = mapped_column(String(255))
    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    assignment_id: Mapped[str | None] = mapped_column(ForeignKey("assignments.id", ondelete="SET NULL"),
                                                      default=None)
    problem: Mapped[str | None] = mapped_column(String(64), default=None)
    title: Mapped[str] = mapped_column(String(200), default="")
    lineitem_url: Mapped[str | None] = mapped_column(String(1000), default=None)
    lineitems_url: Mapped[str | None] = mapped_column(String(1000), default=None)
    ags_scopes: Mapped[str] = mapped_column(Text, default="", doc="Space-separated scopes the platform granted.")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LtiGradeTarget(Base):
    """A learner who launched a graded link: their score for it goes to its line item under their `sub`."""

    __tablename__ = "lti_grade_targets"

    link_id: Mapped[str] = mapped_column(ForeignKey("lti_resource_links.id", ondelete="CASCADE"), primary_key=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True,
                                            index=True)
    sub: Mapped[str] = mapped_column(String(255))


class LtiScore(Base):
    """One score to send (or sent) to a line item for one learner, and what came of it."""

    __tablename__ = "lti_scores"
    __table_args__ = (
        UniqueConstraint("link_id", "learner_id", "cause", name="uq_lti_scores_link_learner_cause"),
        Index("ix_lti_scores_status_next", "status", "next_attempt_at"),
        CheckConstraint("status IN ('pending', 'sent', 'failed', 'superseded')", name="status"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    link_id: Mapped[str] = mapped_column(ForeignKey("lti_resource_links.id", ondelete="CASCADE"))
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    cause: Mapped[str] = mapped_column(String(120), doc="verdict:<submission>, override:<id>, extension:<id>.")
    score_given: Mapped[float] = mapped_column(Float)
    score_maximum: Mapped[float] = mapped_column(Float)
    activity_progress: Mapped[str] = mapped_column(String(16))
    comment: Mapped[str] = mapped_column(Text, default="")
    timestamp: Mapped[datetime] = mapped_column(UTCDateTime(), doc="The score's time, as the platform sees it.")
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    last_error: Mapped[str | None] = mapped_column(Text, default=None)
    response_status: Mapped[int | None] = mapped_column(Integer, default=None)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
