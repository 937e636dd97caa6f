"""Manual grades: an instructor replaces one gradebook cell's score, with a reason, and may clear it again.
Both are in the audit log with their author."""

from __future__ import annotations

import math

from sqlalchemy.orm import Session

from app.courses import audit
from app.courses.assignments import assignment_in, problems_of
from app.courses.extensions import clean_reason, member_in
from app.courses.models import Course, GradeOverride
from app.errors import BadRequest, NotFound


def set_override(*, session: Session, course: Course, assignment_id: str, member_id: str, problem: str,
                 score_percent: float, reason: str, actor: str) -> GradeOverride:
    assignment = assignment_in(session=session, course=course, assignment_id=assignment_id)
    member = member_in(session=session, course=course, member_id=member_id)
    if problem not in problems_of(session, assignment.id):
        raise NotFound(f"The assignment '{assignment.title}' has no problem '{problem}'.")
    if not math.isfinite(score_percent) or not 0 <= score_percent <= 100:
        raise BadRequest(f"A score is a percentage from 0 to 100, not {score_percent}.")
    why = clean_reason(reason)
    row = session.get(GradeOverride, (assignment.id, member.id, problem))
    before = row.score if row is not None else None
    if row is None:
        row = GradeOverride(assignment_id=assignment.id, member_id=member.id, problem=problem, score=score_percent,
                            reason=why, author=actor)
        session.add(row)
    else:
        row.score, row.reason, row.author = score_percent, why, actor
    audit.record(session=session, course_id=course.id, actor=actor, action="grade.override",
                 summary=f"Set {member.name or member.id}'s score on {problem} in '{assignment.title}' to "
                         f"{score_percent:g}%: {why}",
                 assignment=assignment.id, member=member.id, problem=problem, before=before, after=score_percent,
                 reason=why)
    session.commit()
    return row


def clear_override(*, session: Session, course: Course, assignment_id: str, member_id: str, problem: str,
                   reason: str, actor: str) -> None:
    assignment = assignment_in(session=session, course=course, assignment_id=assignment_id)
    member = member_in(session=session, course=course, member_id=member_id)
    row = session.get(GradeOverride, (assignment.id, member.id, problem))
    if row is None:
        raise NotFound("This cell has no manual score to clear.")
    why = clean_reason(reason)
    audit.record(session=session, course_id=course.id, actor=actor, action="grade.override_clear",
                 summary=f"Cleared the manual score of {member.name or member.id} on {problem} in "
                         f"'{assignment.title}' (was {row.score:g}%): {why}",
                 assignment=assignment.id, member=member.id, problem=problem, before=row.score, reason=why)
    session.delete(row)
    session.commit()
