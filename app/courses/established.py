"""Who is identified, for the limits per network address. A learner with an account, one a platform launched
through LTI, or one enrolled in a course is a known person, bounded by the per-learner limits; only anonymous
learners share their network address's limits. A lab of thirty behind one NAT address then runs at once, while
a flood of fresh cookies from one address is still turned away by the address's limits.

Minting an identity is itself limited per address (sign-ups and joins: app.courses.routes_learner), and an LTI
identity needs a platform's signed launch, so a flood cannot make itself identified for free."""

from __future__ import annotations

from sqlalchemy import exists, or_, select
from sqlalchemy.orm import Session

from app.courses.models import CourseMember, LearnerAccount
from app.lti.models import LtiUser

LEARNER_KEY_PREFIX = "learner:"


def is_identified_learner(*, session: Session, learner_id: str) -> bool:
    """One query: an account, an LTI identity, or a course membership."""
    return bool(session.scalar(select(or_(
        exists().where(LearnerAccount.learner_id == learner_id),
        exists().where(LtiUser.learner_id == learner_id),
        exists().where(CourseMember.learner_id == learner_id),
    ))))


def limit_key(*, session: Session, learner_id: str, address: str) -> str:
    """The key the per-address limits (rate, waiting submissions, the fair queue's turns) count this
    submission under: the address for an anonymous learner, the learner for an identified one."""
    if is_identified_learner(session=session, learner_id=learner_id):
        return LEARNER_KEY_PREFIX + learner_id
    return address
