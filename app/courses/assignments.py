"""Assignments: an ordered set of problems with an open time, a due time and a late policy.

Instructors enter times in the course's time zone (a form's `datetime-local` value carries none); they are
stored in UTC and shown to each learner in the learner's own zone. A time that also names its offset (the JSON
API, `2027-03-01T17:00:00+01:00`) is taken as it is."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime

from pydantic import BaseModel, Field
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.courses import audit
from app.courses.courses import clean_title, time_zone_of
from app.courses.models import Assignment, AssignmentProblem, Course
from app.courses.policy import LatePolicy
from app.errors import BadRequest, NotFound

MAX_PROBLEMS = 100


class AssignmentIn(BaseModel):
    """An assignment as a form or the JSON API gives it."""

    title: str = Field(max_length=200)
    opens_at: str = Field(description="In the course's time zone unless it names an offset.")
    due_at: str = Field(description="In the course's time zone unless it names an offset.")
    problems: list[str] = Field(description="Problem slugs, in the order learners meet them.")
    late_policy: str = "none"
    penalty_percent: int = 0
    floor_percent: int = 0


class AssignmentOut(BaseModel):
    id: str
    title: str
    position: int
    opens_at: datetime
    due_at: datetime
    late_policy: str
    penalty_percent: int
    floor_percent: int
    policy_text: str
    problems: list[str]


def parse_course_time(value: str, *, time_zone: str, field: str) -> datetime:
    text = value.strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BadRequest(f"The {field} '{text[:40]}' is not a date and time; write it as 2027-03-01T17:00.") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=time_zone_of(time_zone))
    return moment.astimezone(UTC)


def policy_of(assignment: Assignment) -> LatePolicy:
    return LatePolicy(kind="penalty" if assignment.late_policy == "penalty" else "none",
                      penalty_percent=assignment.penalty_percent, floor_percent=assignment.floor_percent)


def _checked(values: AssignmentIn, *, course: Course, known_problems: Collection[str]) -> dict[str, object]:
    opens = parse_course_time(values.opens_at, time_zone=course.time_zone, field="open time")
    due = parse_course_time(values.due_at, time_zone=course.time_zone, field="due time")
    if due <= opens:
        zone = time_zone_of(course.time_zone)
        raise BadRequest(
            f"The due time ({due.astimezone(zone):%Y-%m-%d %H:%M}) must come after the open time "
            f"({opens.astimezone(zone):%Y-%m-%d %H:%M}, both {course.time_zone})."
        )
    if values.late_policy not in ("none", "penalty"):
        raise BadRequest(f"The late policy is 'none' or 'penalty', not '{values.late_policy}'.")
    for name, value in (("penalty per day", values.penalty_percent), ("floor", values.floor_percent)):
        if not 0 <= value <= 100:
            raise BadRequest(f"The {name} is a percentage from 0 to 100, not {value}.")
    slugs = [slug.strip() for slug in values.problems if slug.strip()]
    if not slugs:
        raise BadRequest("An assignment needs at least one problem.")
    if len(slugs) > MAX_PROBLEMS:
        raise BadRequest(f"An assignment may hold at most {MAX_PROBLEMS} problems.")
    unknown = [slug for slug in slugs if slug not in known_problems]
    if unknown:
        raise BadRequest(f"There is no problem {', '.join(repr(s) for s in unknown)} on this server.")
    if len(set(slugs)) != len(slugs):
        raise BadRequest("A problem appears twice in the assignment.")
    return {"title": clean_title(values.title, "An assignment"), "opens_at": opens, "due_at": due,
            "late_policy": values.late_policy, "penalty_percent": values.penalty_percent,
            "floor_percent": values.floor_percent, "problems": slugs}


def create_assignment(*, session: Session, course: Course, values: AssignmentIn, known_problems: Collection[str],
                      actor: str) -> Assignment:
    fields = _checked(values, course=course, known_problems=known_problems)
    problems = fields.pop("problems")
    position = session.scalar(select(func.coalesce(func.max(Assignment.position), -1) + 1)
                              .where(Assignment.course_id == course.id)) or 0
    assignment = Assignment(course_id=course.id, position=int(position), **fields)
    session.add(assignment)
    session.flush()
    _set_problems(session, assignment.id, problems)  # type: ignore[arg-type]
    audit.record(session=session, course_id=course.id, actor=actor, action="assignment.create",
                 summary=f"Created the assignment '{assignment.title}'.", assignment=assignment.id,
                 **{k: v for k, v in fields.items() if k != "title"}, problems=problems)
    session.commit()
    return assignment


def update_assignment(*, session: Session, course: Course, assignment_id: str, values: AssignmentIn,
                      known_problems: Collection[str], actor: str) -> Assignment:
    assignment = assignment_in(session=session, course=course, assignment_id=assignment_id)
    before = as_out(session, assignment).model_dump(mode="json")
    fields = _checked(values, course=course, known_problems=known_problems)
    problems = fields.pop("problems")
    for name, value in fields.items():
        setattr(assignment, name, value)
    _set_problems(session, assignment.id, problems)  # type: ignore[arg-type]
    session.flush()
    after = as_out(session, assignment).model_dump(mode="json")
    changed = {key: {"before": before[key], "after": after[key]} for key in after if before[key] != after[key]}
    audit.record(session=session, course_id=course.id, actor=actor, action="assignment.update",
                 summary=f"Changed the assignment '{assignment.title}' ({', '.join(changed) or 'nothing'}).",
                 assignment=assignment.id, changes=changed)
    session.commit()
    return assignment


def _set_problems(session: Session, assignment_id: str, problems: list[str]) -> None:
    session.execute(delete(AssignmentProblem).where(AssignmentProblem.assignment_id == assignment_id))
    session.add_all(AssignmentProblem(assignment_id=assignment_id, problem=slug, position=index)
                    for index, slug in enumerate(problems))


def assignment_in(*, session: Session, course: Course, assignment_id: str) -> Assignment:
    assignment = session.get(Assignment, assignment_id)
    if assignment is None or assignment.course_id != course.id:
        raise NotFound(f"This course has no assignment '{assignment_id}'.")
    return assignment


def problems_of(session: Session, assignment_id: str) -> list[str]:
    return list(session.scalars(select(AssignmentProblem.problem)
                                .where(AssignmentProblem.assignment_id == assignment_id)
                                .order_by(AssignmentProblem.position)))


def as_out(session: Session, assignment: Assignment) -> AssignmentOut:
    return AssignmentOut(id=assignment.id, title=assignment.title, position=assignment.position,
                         opens_at=assignment.opens_at, due_at=assignment.due_at, late_policy=assignment.late_policy,
                         penalty_percent=assignment.penalty_percent, floor_percent=assignment.floor_percent,
                         policy_text=policy_of(assignment).describe(), problems=problems_of(session, assignment.id))


def assignments_of(*, session: Session, course_id: str) -> list[AssignmentOut]:
    rows = session.scalars(select(Assignment).where(Assignment.course_id == course_id)
                           .order_by(Assignment.position, Assignment.created_at)).all()
    problems: dict[str, list[str]] = {row.id: [] for row in rows}
    for assignment_id, slug in session.execute(
        select(AssignmentProblem.assignment_id, AssignmentProblem.problem)
        .where(AssignmentProblem.assignment_id.in_(list(problems)))
        .order_by(AssignmentProblem.assignment_id, AssignmentProblem.position)
    ):
        problems[assignment_id].append(slug)
    return [AssignmentOut(id=row.id, title=row.title, position=row.position, opens_at=row.opens_at,
                          due_at=row.due_at, late_policy=row.late_policy, penalty_percent=row.penalty_percent,
                          floor_percent=row.floor_percent, policy_text=policy_of(row).describe(),
                          problems=problems[row.id])
            for row in rows]


def delete_assignment(*, session: Session, course: Course, assignment_id: str, actor: str) -> None:
    assignment = assignment_in(session=session, course=course, assignment_id=assignment_id)
    audit.record(session=session, course_id=course.id, actor=actor, action="assignment.delete",
                 summary=f"Deleted the assignment '{assignment.title}' (with its extensions and overrides).",
                 assignment=assignment.id)
    session.delete(assignment)
    session.commit()
