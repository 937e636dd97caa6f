"""A course's members: the roster an instructor imports (CSV: name, student id, email) and the learners who
join, with the code or through LTI.

Joining with the code is self-declared: the learner may give the student id (or email) the roster lists them
under, and claims that row if nobody has; the instructor sees who claimed which row. A platform's launch is
trusted (its id_token is signed): LTI learners are matched by the email and student id the platform sends."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel
from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import crud
from app.courses import audit
from app.courses.models import Course, CourseMember
from app.errors import BadRequest, Conflict
from app.instructor.models import LearnerProfile
from app.models import utcnow
from app.trust import mark_established

MAX_ROSTER_ROWS = 20_000
MAX_ROSTER_BYTES = 4_000_000
HEADER_NAMES = {
    "name": "name", "full name": "name", "student name": "name",
    "student id": "student_id", "student_id": "student_id", "studentid": "student_id", "id": "student_id",
    "sis id": "student_id", "sis_id": "student_id", "student number": "student_id",
    "email": "email", "e-mail": "email", "email address": "email", "mail": "email",
}


class MemberOut(BaseModel):
    id: str
    name: str
    student_id: str | None
    email: str | None
    learner_id: str | None
    source: str
    joined_at: datetime | None


@dataclass
class ImportResult:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    problems: list[str] = field(default_factory=list)


def clean_email(value: str | None) -> str | None:
    text = (value or "").strip().lower()
    if not text:
        return None
    if "@" not in text or text.startswith("@") or text.endswith("@") or len(text) > 254 or " " in text:
        raise BadRequest(f"'{text[:60]}' is not an email address.")
    return text


def clean_student_id(value: str | None) -> str | None:
    text = (value or "").strip()
    if len(text) > 64:
        raise BadRequest("A student id has at most 64 characters.")
    return text or None


def import_roster(*, session: Session, course: Course, text: str, actor: str) -> ImportResult:
    """Add or update one member per CSV row, matched on student id, then email. A file with a problem in any
    row changes nothing: the problems come back, one per row, to fix and import again."""
    if len(text.encode("utf-8", errors="replace")) > MAX_ROSTER_BYTES:
        raise BadRequest(f"A roster file may be at most {MAX_ROSTER_BYTES // 1_000_000} MB.")
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        raise BadRequest("The roster is empty; give a header row (name, student id, email) and one row per learner.")
    columns = [HEADER_NAMES.get(cell.strip().lower()) for cell in rows[0]]
    if "name" not in columns or not {"student_id", "email"} & set(columns):
        raise BadRequest("The roster's first row must name its columns: name, and student id or email "
                         f"(found: {', '.join(cell.strip() for cell in rows[0])[:200]}).")
    if len(rows) - 1 > MAX_ROSTER_ROWS:
        raise BadRequest(f"A roster may list at most {MAX_ROSTER_ROWS:,} learners.")
    result, parsed = ImportResult(), []
    seen: dict[str, int] = {}
    for number, row in enumerate(rows[1:], start=2):
        values = {name: cell for name, cell in zip(columns, row, strict=False) if name}
        try:
            name = " ".join(values.get("name", "").split())[:200]
            student = clean_student_id(values.get("student_id"))
            email = clean_email(values.get("email"))
        except BadRequest as exc:
            result.problems.append(f"line {number}: {exc.detail}")
            continue
        if not name:
            result.problems.append(f"line {number}: no name")
            continue
        if student is None and email is None:
            result.problems.append(f"line {number}: neither a student id nor an email for {name}")
            continue
        for key in filter(None, (student and f"id:{student.lower()}", email and f"email:{email}")):
            if key in seen:
                result.problems.append(f"line {number}: {key.split(':', 1)[1]} is also on line {seen[key]}")
            seen[key] = number
        parsed.append((name, student, email))
    if result.problems:
        return result
    existing = session.scalars(select(CourseMember).where(CourseMember.course_id == course.id)).all()
    by_student = {m.student_id.lower(): m for m in existing if m.student_id}
    by_email = {m.email: m for m in existing if m.email}
    for name, student, email in parsed:
        member = (by_student.get(student.lower()) if student else None) or (by_email.get(email) if email else None)
        if member is None:
            member = CourseMember(course_id=course.id, name=name, student_id=student, email=email, source="roster")
            session.add(member)
            result.added += 1
        elif (member.name, member.student_id, member.email) == (name, student or member.student_id,
                                                                email or member.email):
            result.unchanged += 1
            continue
        else:
            member.name, member.student_id, member.email = name, student or member.student_id, email or member.email
            result.updated += 1
        if student:
            by_student[student.lower()] = member
        if email:
            by_email[email] = member
    audit.record(session=session, course_id=course.id, actor=actor, action="roster.import",
                 summary=f"Imported a roster: {result.added} added, {result.updated} updated, "
                         f"{result.unchanged} unchanged.", added=result.added, updated=result.updated)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise Conflict("Two rows of the roster name the same student id or email as different people; "
                       "fix the file and import it again.") from None
    return result


def members_of(*, session: Session, course_id: str) -> list[MemberOut]:
    rows = session.execute(
        select(CourseMember, LearnerProfile.display_name)
        .outerjoin(LearnerProfile, LearnerProfile.learner_id == CourseMember.learner_id)
        .where(CourseMember.course_id == course_id)
        .order_by(CourseMember.name, CourseMember.created_at)
    ).all()
    return [MemberOut(id=m.id, name=m.name or profile or "", student_id=m.student_id, email=m.email,
                      learner_id=m.learner_id, source=m.source, joined_at=m.joined_at) for m, profile in rows]


def member_of_learner(*, session: Session, course_id: str, learner_id: str) -> CourseMember | None:
    return session.scalars(select(CourseMember).where(CourseMember.course_id == course_id,
                                                      CourseMember.learner_id == learner_id)).first()


def join(*, session: Session, course: Course, learner_id: str, name: str, student_id: str | None,
         email: str | None = None, source: str = "code") -> CourseMember:
    """The learner's member row in `course`: theirs already, a roster row they claim (by student id, else
    email), or a new one. Conflict when the roster row they name was claimed by another learner."""
    already = member_of_learner(session=session, course_id=course.id, learner_id=learner_id)
    if already is not None:
        if already.joined_at is None:  # listed by the platform's roster service, here for the first time
            already.joined_at = utcnow()
            audit.record(session=session, course_id=course.id, actor=f"learner:{learner_id}", action="member.join",
                         summary=f"{already.name or 'A learner'} joined (first launch from the LMS).",
                         member=already.id, source=source)
            session.commit()
            vouch_for_member(session=session, learner_id=learner_id, source=source)
        return already
    name = " ".join(name.split())[:200]
    student, address = clean_student_id(student_id), clean_email(email)
    crud.ensure_learner(session=session, learner_id=learner_id)
    conditions = []
    if student:
        conditions.append(CourseMember.student_id == student)
    if address:
        conditions.append(CourseMember.email == address)
    row = session.scalars(select(CourseMember).where(CourseMember.course_id == course.id, or_(*conditions))
                          .order_by(CourseMember.student_id.is_(None))).first() if conditions else None
    if row is not None and row.learner_id is not None:
        raise Conflict("Someone has already joined this course with that student id or email. If that was "
                       "not you, tell your instructor; they can see who joined as whom.")
    now = utcnow()
    if row is None:
        if not name:
            raise BadRequest("Give the name your instructor knows you by.")
        row = CourseMember(course_id=course.id, learner_id=learner_id, name=name, student_id=student,
                           email=address, source=source, joined_at=now)
        session.add(row)
        summary = f"{name} joined ({'through the platform' if source == 'lti' else 'with the code'})."
    else:
        row.learner_id, row.joined_at = learner_id, now
        if name and not row.name:
            row.name = name
        summary = f"{row.name} joined and matched the roster by {'student id' if student else 'email'}."
    audit.record(session=session, course_id=course.id, actor=f"learner:{learner_id}", action="member.join",
                 summary=summary, member=row.id, source=source)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise Conflict("That student id or email is already on this course's roster for someone else; "
                       "ask your instructor.") from None
    vouch_for_member(session=session, learner_id=learner_id, source=source)
    return row


def vouch_for_member(*, session: Session, learner_id: str, source: str) -> None:
    """A course's member is a known person: the per-address caps leave them alone (app.trust), so a class
    behind one NAT address runs together. Joining with a code is limited per address (app.courses.routes_learner),
    an LTI launch needs a platform's signature."""
    mark_established(session=session, learner_id=learner_id, reason="lti" if source == "lti" else "course")


def courses_of_learner(*, session: Session, learner_id: str) -> list[tuple[Course, CourseMember]]:
    return [(course, member) for course, member in session.execute(
        select(Course, CourseMember).join(CourseMember, CourseMember.course_id == Course.id)
        .where(CourseMember.learner_id == learner_id).order_by(Course.title)).all()]
