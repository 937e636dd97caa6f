"""Courses and the instructors who share them. Every read of a course on the instructor's side goes through
`course_for_instructor`, which answers NotFound alike for a course that does not exist and for one the
instructor does not belong to: an instructor sees only their own courses, and cannot learn which others exist."""

from __future__ import annotations

import secrets
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.courses import audit
from app.courses.models import Assignment, Course, CourseInstructor, CourseMember
from app.errors import BadRequest, Conflict, NotFound
from app.instructor.models import Instructor

# No 0/O, 1/I/L: a code read aloud in a lecture or copied from a slide is typed right. 31^8 is about 8.5e11.
JOIN_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
JOIN_CODE_CHARS = 8
MAX_TITLE_CHARS = 200


class CourseSummary(BaseModel):
    id: str
    title: str
    join_code: str
    time_zone: str
    members: int
    joined: int
    assignments: int
    created_at: datetime


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_ALPHABET) for _ in range(JOIN_CODE_CHARS))


def normalise_join_code(code: str) -> str:
    """What a learner typed, as stored: upper case, without the dash and spaces the page shows it with."""
    return "".join(code.split()).replace("-", "").upper()


def display_join_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}" if len(code) == JOIN_CODE_CHARS else code


def time_zone_of(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadRequest(f"'{name}' is not a time zone; give an IANA name such as Europe/London or "
                         "America/New_York.") from None


def clean_title(title: str, what: str = "A course") -> str:
    value = " ".join(title.split())
    if not value:
        raise BadRequest(f"{what} needs a title.")
    if len(value) > MAX_TITLE_CHARS:
        raise BadRequest(f"{what}'s title may have at most {MAX_TITLE_CHARS} characters.")
    return value


def create_course(*, session: Session, title: str, time_zone: str, instructor_id: str, actor: str) -> Course:
    time_zone_of(time_zone)
    course = Course(title=clean_title(title), join_code=new_join_code(), time_zone=time_zone)
    session.add(course)
    session.flush()
    session.add(CourseInstructor(course_id=course.id, instructor_id=instructor_id))
    audit.record(session=session, course_id=course.id, actor=actor, action="course.create",
                 summary=f"Created the course '{course.title}'.", time_zone=time_zone)
    session.commit()
    return course


def course_for_instructor(*, session: Session, course_id: str, instructor_id: str) -> Course:
    course = session.scalars(
        select(Course).join(CourseInstructor, CourseInstructor.course_id == Course.id)
        .where(Course.id == course_id, CourseInstructor.instructor_id == instructor_id)
    ).first()
    if course is None:
        raise NotFound(f"You have no course '{course_id}'.")
    return course


def courses_of(*, session: Session, instructor_id: str) -> list[CourseSummary]:
    members = (select(CourseMember.course_id, func.count().label("members"),
                      func.count(CourseMember.joined_at).label("joined"))
               .group_by(CourseMember.course_id).subquery("member_counts"))
    assignments = (select(Assignment.course_id, func.count().label("assignments"))
                   .group_by(Assignment.course_id).subquery("assignment_counts"))
    rows = session.execute(
        select(Course, func.coalesce(members.c.members, 0), func.coalesce(members.c.joined, 0),
               func.coalesce(assignments.c.assignments, 0))
        .join(CourseInstructor, CourseInstructor.course_id == Course.id)
        .outerjoin(members, members.c.course_id == Course.id)
        .outerjoin(assignments, assignments.c.course_id == Course.id)
        .where(CourseInstructor.instructor_id == instructor_id)
        .order_by(Course.created_at.desc())
    ).all()
    return [CourseSummary(id=course.id, title=course.title, join_code=display_join_code(course.join_code),
                          time_zone=course.time_zone, members=int(n), joined=int(joined),
                          assignments=int(count), created_at=course.created_at)
            for course, n, joined, count in rows]


def instructors_of(*, session: Session, course_id: str) -> list[str]:
    return list(session.scalars(
        select(Instructor.email).join(CourseInstructor, CourseInstructor.instructor_id == Instructor.id)
        .where(CourseInstructor.course_id == course_id).order_by(Instructor.email)))


def add_course_instructor(*, session: Session, course: Course, email: str, actor: str) -> None:
    """Share the course with another instructor account (an operator makes accounts: there is no invitation)."""
    address = email.strip().lower()
    other = session.scalars(select(Instructor).where(Instructor.email == address)).first()
    if other is None:
        raise NotFound(f"There is no instructor account '{address}'; an operator makes one with "
                       "`python -m app instructor add`.")
    if session.get(CourseInstructor, (course.id, other.id)) is not None:
        raise Conflict(f"{address} already runs this course.")
    session.add(CourseInstructor(course_id=course.id, instructor_id=other.id))
    audit.record(session=session, course_id=course.id, actor=actor, action="instructor.add",
                 summary=f"Added {address} as an instructor.", email=address)
    session.commit()


def remove_course_instructor(*, session: Session, course: Course, email: str, actor: str) -> None:
    address = email.strip().lower()
    other = session.scalars(select(Instructor).where(Instructor.email == address)).first()
    link = session.get(CourseInstructor, (course.id, other.id)) if other is not None else None
    if link is None:
        raise NotFound(f"{address} does not run this course.")
    if len(instructors_of(session=session, course_id=course.id)) == 1:
        raise Conflict("A course keeps at least one instructor; add another before removing this one.")
    session.delete(link)
    audit.record(session=session, course_id=course.id, actor=actor, action="instructor.remove",
                 summary=f"Removed {address} from the instructors.", email=address)
    session.commit()


def rotate_join_code(*, session: Session, course: Course, actor: str) -> str:
    """A new join code (the old one stops working at once), e.g. after it was posted somewhere public."""
    for _ in range(5):
        course.join_code = new_join_code()
        audit.record(session=session, course_id=course.id, actor=actor, action="course.join_code",
                     summary="Replaced the join code; the old one no longer works.")
        try:
            session.commit()
            return course.join_code
        except IntegrityError:  # a clash with another course's code: about one in 10^11
            session.rollback()
    raise Conflict("Could not make a new join code; try again.")


def course_by_code(*, session: Session, code: str) -> Course:
    value = normalise_join_code(code)
    course = session.scalars(select(Course).where(Course.join_code == value)).first() if value else None
    if course is None:
        raise NotFound(f"There is no course with the join code '{code.strip()[:20]}'. Check it with your "
                       "instructor: it has 8 letters and digits, like ABCD-2345.")
    return course
