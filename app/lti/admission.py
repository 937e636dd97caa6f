"""What a validated launch does in PaperLab: who the user is here, which course the platform's course is, what
the link opens, and where the browser goes next.

- The platform's course (its `context`) maps to one PaperLab course. An instructor's first launch from a course
  makes it (titled as the platform names it) and makes them its instructor; a learner's launch from a course no
  instructor has opened yet is refused with what to do.
- A platform user (`sub`) is one PaperLab learner (a new learner id, never this browser's anonymous one: a shared
  lab computer must not hand one student's work to the next) and, when their roles say so, one instructor
  (matched by email to an existing instructor account, else a new one that can only come in through the
  platform, since it has no password).
- A learner joins the course's roster, matched by the platform's email or student id, and is identified from
  then on (vouched for to app.trust: limited as a learner, not by their network address).
- A resource link opens what its custom parameters name (`paperlab_assignment` or `paperlab_problem`, as deep
  linking writes them), and remembers its line item for the scores. A link placed by hand, without them, is
  bound by an instructor once, on the course page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.courses import audit, members
from app.courses.models import Assignment, Course, CourseInstructor
from app.errors import BadRequest
from app.instructor.models import Instructor
from app.lti.launch import CLAIM, LaunchRefused, ValidatedLaunch
from app.lti.models import LtiContext, LtiGradeTarget, LtiLaunch, LtiResourceLink, LtiUser
from app.models import Learner, new_id, utcnow

DEEP_LINKING = "LtiDeepLinkingRequest"
RESOURCE_LINK = "LtiResourceLinkRequest"
LAUNCH_TTL = timedelta(hours=1)  # how long an instructor may take to pick content for a deep-linking request
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
STAFF_ROLES = ("#Instructor", "#Administrator", "#ContentDeveloper", "#TeachingAssistant", "#Mentor")
NO_PASSWORD = "!lti-only"  # not an argon2 hash: a password sign-in can never match it
ASSIGNMENT_PARAM = "paperlab_assignment"
PROBLEM_PARAM = "paperlab_problem"


@dataclass(frozen=True)
class Admitted:
    """Where the browser goes, and as whom."""

    location: str
    learner_id: str | None = None
    instructor_id: str | None = None


def is_staff(claims: dict[str, Any]) -> bool:
    roles = claims.get(CLAIM + "roles") or []
    return any(isinstance(role, str) and (role.endswith(STAFF_ROLES) or role in ("Instructor", "Administrator"))
               for role in roles)


def admit(*, session: Session, launch: ValidatedLaunch, known_problems: set[str]) -> Admitted:
    if launch.message_type not in (RESOURCE_LINK, DEEP_LINKING):
        raise LaunchRefused(f"PaperLab does not handle {launch.message_type or 'untyped'} messages; it takes "
                            "resource links and deep linking.")
    claims = launch.claims
    staff = is_staff(claims)
    if launch.message_type == DEEP_LINKING and not staff:
        raise LaunchRefused("Only an instructor can pick PaperLab content for a course.")
    user = _user(session, launch.platform_id, claims, staff=staff)
    course = _course(session, launch.platform_id, claims, user if staff else None)
    if launch.message_type == DEEP_LINKING:
        session.add(LtiLaunch(id=launch.launch_id, platform_id=launch.platform_id, claims=json.dumps(claims),
                              instructor_id=user.instructor_id, expires_at=utcnow() + LAUNCH_TTL))
        session.commit()
        return Admitted(location=f"/lti/deep-link/{launch.launch_id}", instructor_id=user.instructor_id)
    link = _link(session, launch.platform_id, claims, course, known_problems)
    if staff:
        session.commit()
        where = (f"/instructor/courses/{course.id}/assignments/{link.assignment_id}" if link.assignment_id
                 else f"/instructor/courses/{course.id}#lti")
        return Admitted(location=where, instructor_id=user.instructor_id)
    assert user.learner_id is not None
    lis = claims.get(CLAIM + "lis") or {}
    members.join(session=session, course=course, learner_id=user.learner_id, name=user.name,
                 student_id=lis.get("person_sourcedid") if isinstance(lis, dict) else None, email=user.email,
                 source="lti")
    if link.lineitem_url or link.lineitems_url:
        if session.get(LtiGradeTarget, (link.id, user.learner_id)) is None:
            session.add(LtiGradeTarget(link_id=link.id, learner_id=user.learner_id, sub=str(claims["sub"])))
    session.commit()
    if link.assignment_id:
        return Admitted(location=f"/courses/{course.id}/assignments/{link.assignment_id}", learner_id=user.learner_id)
    if link.problem:
        return Admitted(location=f"/problems/{link.problem}", learner_id=user.learner_id)
    return Admitted(location=f"/courses/{course.id}?unbound=1", learner_id=user.learner_id)


def _user(session: Session, platform_id: str, claims: dict[str, Any], *, staff: bool) -> LtiUser:
    sub = str(claims.get("sub") or "")
    if not sub:
        raise LaunchRefused("The launch names no user (`sub`); PaperLab does not take anonymous launches.")
    name = str(claims.get("name") or " ".join(filter(None, [claims.get("given_name"), claims.get("family_name")])))
    email = members.clean_email(claims.get("email")) if claims.get("email") else None
    user = session.get(LtiUser, (platform_id, sub))
    if user is None:
        user = LtiUser(platform_id=platform_id, sub=sub)
    if not staff and user.learner_id is None:
        user.learner_id = new_id()
        session.add(Learner(id=user.learner_id))  # a new id, never this browser's anonymous one
        session.flush()  # before the user row that refers to it (no ORM relationship orders the two)
    session.add(user)
    user.name, user.email, user.updated_at = name[:200], email, utcnow()
    if staff and user.instructor_id is None:
        existing = session.scalars(select(Instructor).where(Instructor.email == email)).first() if email else None
        if existing is None:
            existing = Instructor(email=email or f"{sub[:180]}@lti.{platform_id[:8]}", password_hash=NO_PASSWORD)
            session.add(existing)
            session.flush()
        user.instructor_id = existing.id
    session.flush()
    return user


def _course(session: Session, platform_id: str, claims: dict[str, Any], staff: LtiUser | None) -> Course:
    context = claims.get(CLAIM + "context") or {}
    context_id = str(context.get("id") or "") if isinstance(context, dict) else ""
    if not context_id:
        raise LaunchRefused("The launch names no course (`context`); place PaperLab inside a course in the LMS.")
    row = session.get(LtiContext, (platform_id, context_id))
    title = str(context.get("title") or context.get("label") or "Course from the LMS")[:200]
    if row is None:
        if staff is None:
            raise LaunchRefused("This course is not set up in PaperLab yet: your instructor opens one of its "
                                "PaperLab links first, then yours works.")
        from app.courses.courses import new_join_code  # a course made by a launch

        made = Course(title=title, join_code=new_join_code(), time_zone="UTC")
        session.add(made)
        session.flush()
        row = LtiContext(platform_id=platform_id, context_id=context_id, course_id=made.id, title=title)
        session.add(row)
        audit.record(session=session, course_id=made.id, actor=staff.email or f"lti:{staff.sub}",
                     action="course.create", summary=f"Created from the LMS course '{title}'.", context=context_id)
    nrps = claims.get(NRPS) or {}
    if isinstance(nrps, dict) and nrps.get("context_memberships_url"):
        row.memberships_url = str(nrps["context_memberships_url"])[:1000]
    found = session.get(Course, row.course_id)
    assert found is not None  # the context's foreign key keeps it
    course = found
    if staff is not None and staff.instructor_id is not None and \
            session.get(CourseInstructor, (course.id, staff.instructor_id)) is None:
        session.add(CourseInstructor(course_id=course.id, instructor_id=staff.instructor_id))
        audit.record(session=session, course_id=course.id, actor=staff.email or f"lti:{staff.sub}",
                     action="instructor.add", summary=f"{staff.name or staff.email} joined as an instructor "
                     "through the LMS.")
    return course


def _link(session: Session, platform_id: str, claims: dict[str, Any], course: Course,
          known_problems: set[str]) -> LtiResourceLink:
    resource = claims.get(CLAIM + "resource_link") or {}
    link_id = str(resource.get("id") or "") if isinstance(resource, dict) else ""
    if not link_id:
        raise LaunchRefused("The launch names no resource link.")
    link = session.scalars(select(LtiResourceLink).where(LtiResourceLink.platform_id == platform_id,
                                                         LtiResourceLink.resource_link_id == link_id)).first()
    if link is None:
        link = LtiResourceLink(platform_id=platform_id, resource_link_id=link_id, course_id=course.id,
                               title=str(resource.get("title") or "")[:200])
        session.add(link)
    custom = claims.get(CLAIM + "custom") or {}
    if isinstance(custom, dict) and link.assignment_id is None and link.problem is None:
        bind(session=session, link=link, course=course, assignment_id=custom.get(ASSIGNMENT_PARAM),
             problem=custom.get(PROBLEM_PARAM), known_problems=known_problems)
    endpoint = claims.get(AGS) or {}
    if isinstance(endpoint, dict):
        link.lineitem_url = (str(endpoint["lineitem"])[:1000] if endpoint.get("lineitem") else link.lineitem_url)
        link.lineitems_url = (str(endpoint["lineitems"])[:1000] if endpoint.get("lineitems")
                              else link.lineitems_url)
        link.ags_scopes = " ".join(str(scope) for scope in endpoint.get("scope") or [])
    session.flush()
    return link


def bind(*, session: Session, link: LtiResourceLink, course: Course, assignment_id: object, problem: object,
         known_problems: set[str]) -> None:
    """Make `link` open an assignment of `course`, or a problem on this server (neither: left unbound)."""
    if isinstance(assignment_id, str) and assignment_id:
        assignment = session.get(Assignment, assignment_id)
        if assignment is None or assignment.course_id != course.id:
            raise BadRequest("This link names an assignment that is not in this course.")
        link.assignment_id, link.problem = assignment.id, None
    elif isinstance(problem, str) and problem:
        if problem not in known_problems:
            raise BadRequest(f"This link names the problem '{problem[:64]}', which this server does not have.")
        link.problem, link.assignment_id = problem, None
