"""Names and Role Provisioning: the platform's class list into the course's roster. Each learner of the platform
course gets a member row (matched to an existing one by email or student id), a PaperLab learner id bound to
their platform user (so that their first launch finds it), and is marked as not yet joined until they launch.
Staff are left out: instructors come in through their own launches."""

from __future__ import annotations

from dataclasses import dataclass, field

from pylti1p3.exception import LtiException
from pylti1p3.names_roles import NamesRolesProvisioningService
from requests import RequestException
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from app.courses import audit
from app.courses.members import clean_email, clean_student_id
from app.courses.models import Course, CourseMember
from app.errors import BadRequest, ServiceUnavailable
from app.lti.adapters import http_session
from app.lti.models import LtiContext, LtiPlatform, LtiUser
from app.lti.runtime import LtiRuntime
from app.models import Learner, new_id, utcnow
from app.trust import mark_established

LEARNER_ROLE = "#Learner"


@dataclass
class SyncResult:
    learners: int = 0
    added: int = 0
    matched: int = 0
    learner_ids: list[str] = field(default_factory=list)


def sync_roster(*, runtime: LtiRuntime, session: Session, course: Course, actor: str) -> SyncResult:
    contexts = session.scalars(select(LtiContext).where(LtiContext.course_id == course.id,
                                                        LtiContext.memberships_url.is_not(None))).all()
    if not contexts:
        raise BadRequest("No LMS course with a roster service is linked to this course yet: an instructor "
                         "launches PaperLab from the LMS course once, then the roster can be synchronised.")
    result = SyncResult()
    for context in contexts:
        platform = session.get(LtiPlatform, context.platform_id)
        assert platform is not None and context.memberships_url is not None
        with http_session() as http:
            service = NamesRolesProvisioningService(runtime.connector(platform, http), {
                "context_memberships_url": context.memberships_url})
            try:
                people = service.get_members()
            except (LtiException, RequestException) as exc:
                raise ServiceUnavailable(f"The platform's roster service did not answer: {exc}",
                                         retry_after=30) from None
        for person in people:
            roles = person.get("roles") or []
            if not any(str(role).endswith(LEARNER_ROLE) or role == "Learner" for role in roles):
                continue
            if str(person.get("status", "Active")) != "Active":
                continue
            result.learners += 1
            _one(session, course, platform.id, dict(person), result)
        context.synced_at = utcnow()
    audit.record(session=session, course_id=course.id, actor=actor, action="roster.sync",
                 summary=f"Synchronised the roster with the LMS: {result.learners} learners, {result.added} added, "
                         f"{result.matched} matched to existing rows.", learners=result.learners, added=result.added,
                 matched=result.matched)
    session.commit()
    for learner_id in result.learner_ids:  # listed by the platform: known people (app.trust)
        mark_established(session=session, learner_id=learner_id, reason="lti")
    return result


def _one(session: Session, course: Course, platform_id: str, person: dict[str, object], result: SyncResult) -> None:
    sub = str(person.get("user_id") or "")
    if not sub:
        return
    try:
        email = clean_email(str(person.get("email") or "")) or None
    except BadRequest:
        email = None
    student = clean_student_id(str(person.get("lis_person_sourcedid") or "")[:64])
    name = str(person.get("name") or " ".join(str(person.get(k) or "") for k in ("given_name", "family_name"))
               ).strip()[:200]
    user = session.get(LtiUser, (platform_id, sub))
    if user is None:
        user = LtiUser(platform_id=platform_id, sub=sub, name=name, email=email)
    if user.learner_id is None:
        user.learner_id = new_id()
        session.add(Learner(id=user.learner_id))  # a new id: no row yet, and the caller's transaction goes on
        session.flush()  # before the user row that refers to it
    session.add(user)
    session.flush()
    result.learner_ids.append(user.learner_id)
    conditions = [CourseMember.learner_id == user.learner_id]
    if email:
        conditions.append(CourseMember.email == email)
    if student:
        conditions.append(CourseMember.student_id == student)
    member = session.scalars(select(CourseMember).where(CourseMember.course_id == course.id, or_(*conditions))
                             ).first()
    if member is None:
        session.add(CourseMember(course_id=course.id, learner_id=user.learner_id, name=name, email=email,
                                 student_id=student, source="lti"))
        result.added += 1
    elif member.learner_id in (None, user.learner_id):
        member.learner_id = user.learner_id
        member.name = member.name or name
        result.matched += 1
