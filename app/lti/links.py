"""The LTI side of one course, as its instructor's page shows it: the platform courses linked to it, the links
placed there and what each opens (an unbound one gets a form), and the scores sent, waiting and failed."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.courses import audit
from app.courses.models import Course
from app.errors import NotFound
from app.lti import passback
from app.lti.admission import bind
from app.lti.models import LtiContext, LtiPlatform, LtiResourceLink


def course_lti_summary(*, session: Session, course_id: str) -> dict[str, Any]:
    contexts = session.execute(
        select(LtiContext, LtiPlatform.title).join(LtiPlatform, LtiPlatform.id == LtiContext.platform_id)
        .where(LtiContext.course_id == course_id)).all()
    links = session.scalars(select(LtiResourceLink).where(LtiResourceLink.course_id == course_id)
                            .order_by(LtiResourceLink.created_at)).all()
    return {
        "contexts": [{"platform": title, "title": c.title, "context_id": c.context_id,
                      "roster_service": c.memberships_url is not None,
                      "synced_at": c.synced_at.isoformat() if c.synced_at else None} for c, title in contexts],
        "links": [{"id": link.id, "title": link.title, "assignment_id": link.assignment_id, "problem": link.problem,
                   "graded": bool(link.lineitem_url or link.lineitems_url)} for link in links],
        "scores": passback.summary(session=session, course_id=course_id),
        "failed": [{"cause": s.cause, "error": s.last_error, "status": s.response_status,
                    "at": s.created_at.isoformat()} for s in passback.failed_scores(session=session,
                                                                                    course_id=course_id)],
    }


def bind_link(*, session: Session, course: Course, link_id: str, target: str, known_problems: set[str],
              actor: str) -> None:
    """`target` is `assignment:<id>` or `problem:<slug>`, from the course page's form."""
    link = session.get(LtiResourceLink, link_id)
    if link is None or link.course_id != course.id:
        raise NotFound(f"This course has no LTI link '{link_id}'.")
    kind, _, value = target.partition(":")
    bind(session=session, link=link, course=course, assignment_id=value if kind == "assignment" else None,
         problem=value if kind == "problem" else None, known_problems=known_problems)
    audit.record(session=session, course_id=course.id, actor=actor, action="lti.bind",
                 summary=f"The LMS link '{link.title or link.resource_link_id}' now opens {target}.", link=link.id)
    session.commit()
