"""Extensions: one learner, one assignment, a later due time and the reason, recorded in the audit log. The
gradebook scores against the extended due time from then on, past work included."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.courses import audit
from app.courses.assignments import assignment_in, parse_course_time
from app.courses.courses import time_zone_of
from app.courses.models import Assignment, Course, CourseMember, Extension
from app.errors import BadRequest, NotFound

MAX_REASON_CHARS = 1000


class ExtensionOut(BaseModel):
    assignment_id: str
    member_id: str
    member_name: str
    due_at: datetime
    reason: str
    granted_by: str
    granted_at: datetime


def member_in(*, session: Session, course: Course, member_id: str) -> CourseMember:
    member = session.get(CourseMember, member_id)
    if member is None or member.course_id != course.id:
        raise NotFound(f"This course has no member '{member_id}'.")
    return member


def clean_reason(reason: str) -> str:
    text = reason.strip()
    if not text:
        raise BadRequest("Give a reason; it goes into the course's audit log.")
    if len(text) > MAX_REASON_CHARS:
        raise BadRequest(f"A reason has at most {MAX_REASON_CHARS} characters.")
    return text


def grant_extension(*, session: Session, course: Course, assignment_id: str, member_id: str, due_at: str,
                    reason: str, actor: str) -> Extension:
    assignment = assignment_in(session=session, course=course, assignment_id=assignment_id)
    member = member_in(session=session, course=course, member_id=member_id)
    due = parse_course_time(due_at, time_zone=course.time_zone, field="extended due time")
    if due <= assignment.due_at:
        zone = time_zone_of(course.time_zone)
        raise BadRequest(f"An extension must end after the assignment's due time "
                         f"({assignment.due_at.astimezone(zone):%Y-%m-%d %H:%M} {course.time_zone}).")
    why = clean_reason(reason)
    extension = session.get(Extension, (assignment.id, member.id))
    before = extension.due_at.isoformat() if extension is not None else None
    if extension is None:
        extension = Extension(assignment_id=assignment.id, member_id=member.id, due_at=due, reason=why,
                              granted_by=actor)
        session.add(extension)
    else:
        extension.due_at, extension.reason, extension.granted_by = due, why, actor
    zone = time_zone_of(course.time_zone)
    audit.record(session=session, course_id=course.id, actor=actor, action="extension.grant",
                 summary=f"Extended '{assignment.title}' for {member.name or member.student_id or member.id} to "
                         f"{due.astimezone(zone):%Y-%m-%d %H:%M} {course.time_zone}: {why}",
                 assignment=assignment.id, member=member.id, before=before, after=due.isoformat(), reason=why)
    session.commit()
    return extension


def revoke_extension(*, session: Session, course: Course, assignment_id: str, member_id: str, reason: str,
                     actor: str) -> None:
    assignment = assignment_in(session=session, course=course, assignment_id=assignment_id)
    member = member_in(session=session, course=course, member_id=member_id)
    extension = session.get(Extension, (assignment.id, member.id))
    if extension is None:
        raise NotFound("This learner has no extension on this assignment.")
    why = clean_reason(reason)
    audit.record(session=session, course_id=course.id, actor=actor, action="extension.revoke",
                 summary=f"Withdrew the extension of '{assignment.title}' for {member.name or member.id}: {why}",
                 assignment=assignment.id, member=member.id, before=extension.due_at.isoformat(), reason=why)
    session.delete(extension)
    session.commit()


def extensions_of(*, session: Session, course_id: str) -> list[ExtensionOut]:
    rows = session.execute(
        select(Extension, CourseMember.name)
        .join(CourseMember, CourseMember.id == Extension.member_id)
        .join(Assignment, Assignment.id == Extension.assignment_id)
        .where(Assignment.course_id == course_id)
        .order_by(Assignment.position, CourseMember.name)
    ).all()
    return [ExtensionOut(assignment_id=e.assignment_id, member_id=e.member_id, member_name=name, due_at=e.due_at,
                         reason=e.reason, granted_by=e.granted_by, granted_at=e.granted_at) for e, name in rows]
