"""The instructor's course pages (/instructor/courses) and API (/api/instructor/courses). Both routers depend on
`require_instructor`, and every route reads its course through `course_for_instructor`: another instructor's
course answers 404 as if it did not exist. Forms carry the session's CSRF token."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, StreamingResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.catalog import ProblemCatalog
from app.courses import assignments as assignment_service
from app.courses import audit, courses, extensions, gradebook, members, overrides
from app.courses import export as gradebook_export
from app.courses.courses import display_join_code, time_zone_of
from app.courses.models import Course
from app.courses.stats import course_problem_stats
from app.deps import CatalogDep, StateDep, in_session
from app.errors import AppError, BadRequest, Forbidden
from app.instructor import auth
from app.instructor.auth import CSRF_FIELD, InstructorDep, SignedIn
from app.lti import links as lti_links
from app.lti import passback
from app.state import AppState
from app.templating import render

T = TypeVar("T")
MAX_ROSTER_FORM_BYTES = 1_100_000  # the app's request body limit is a little above this (PAPERLAB_MAX_CODE_BYTES)

guarded = [Depends(auth.require_instructor)]
pages = APIRouter(prefix="/instructor/courses", include_in_schema=False, default_response_class=HTMLResponse,
                  dependencies=guarded)
api = APIRouter(prefix="/api/instructor/courses", tags=["courses (instructor)"], dependencies=guarded)


async def with_course(state: AppState, instructor: SignedIn, course_id: str,
                      work: Callable[[Session, Course], T]) -> T:
    """work(session, course) in one trip to the thread pool, once the course is known to be this instructor's."""

    def run(session: Session) -> T:
        course = courses.course_for_instructor(session=session, course_id=course_id,
                                               instructor_id=instructor.instructor_id)
        return work(session, course)

    return await in_session(state, run)


class FormData:
    """An `application/x-www-form-urlencoded` body: `get` reads a field's first value, `all` every value (the
    ticked boxes of a list)."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        self._fields = fields

    def get(self, name: str, default: str = "") -> str:
        values = self._fields.get(name)
        return values[0] if values else default

    def all(self, name: str) -> list[str]:
        return list(self._fields.get(name, []))


async def read_checked_form(request: Request, instructor: SignedIn, *, limit: int = auth.MAX_FORM_BYTES
                            ) -> FormData:
    """The form, once its CSRF token is this session's (the roster's form may be larger than others)."""
    body = await request.body()
    if len(body) > limit:
        raise Forbidden(f"A form may be at most {limit:,} bytes.")
    form = FormData(parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True))
    auth.check_csrf({CSRF_FIELD: form.get(CSRF_FIELD)}, instructor)
    return form


def _page(request: Request, name: str, instructor: SignedIn, context: dict[str, Any],
          status_code: int = 200) -> Response:
    return render(request, name, {"instructor": instructor, "csrf_field": CSRF_FIELD, **context},
                  status_code=status_code)


def local_input(moment: datetime, zone_name: str) -> str:
    """A stored time as a `datetime-local` value in the course's zone."""
    return moment.astimezone(time_zone_of(zone_name)).strftime("%Y-%m-%dT%H:%M")


def _titles(catalog: ProblemCatalog) -> dict[str, str]:
    return {slug: entry.public()["title"] for slug, entry in catalog.entries.items()}


def _course_out(course: Course) -> dict[str, Any]:
    return {"id": course.id, "title": course.title, "join_code": display_join_code(course.join_code),
            "time_zone": course.time_zone}


def _back(course_id: str, fragment: str = "", note: str = "") -> RedirectResponse:
    query = f"?note={note}" if note else ""
    return RedirectResponse(f"/instructor/courses/{course_id}{query}{'#' + fragment if fragment else ''}",
                            status_code=303)


# --- the list and a new course --------------------------------------------------------------------------------


@pages.get("")
async def course_list(request: Request, state: StateDep, instructor: InstructorDep) -> Response:
    rows = await in_session(state, lambda s: courses.courses_of(session=s, instructor_id=instructor.instructor_id))
    return _page(request, "courses/instructor_list.html", instructor,
                 {"courses": [row.model_dump(mode="json") for row in rows], "error": None})


@pages.post("")
async def create_course(request: Request, state: StateDep, instructor: InstructorDep) -> Response:
    form = await read_checked_form(request, instructor)

    def create(session: Session) -> Course:
        return courses.create_course(session=session, title=form.get("title", ""),
                                     time_zone=form.get("time_zone", "").strip() or "UTC",
                                     instructor_id=instructor.instructor_id, actor=instructor.email)

    try:
        course = await in_session(state, create)
    except BadRequest as exc:
        rows = await in_session(state, lambda s: courses.courses_of(session=s,
                                                                    instructor_id=instructor.instructor_id))
        return _page(request, "courses/instructor_list.html", instructor,
                     {"courses": [row.model_dump(mode="json") for row in rows], "error": exc.detail}, 400)
    return _back(course.id)


# --- one course -----------------------------------------------------------------------------------------------


def course_context(session: Session, course: Course, catalog: ProblemCatalog) -> dict[str, Any]:
    roster = members.members_of(session=session, course_id=course.id)
    return {
        "course": _course_out(course),
        "instructors": courses.instructors_of(session=session, course_id=course.id),
        "assignments": [a.model_dump(mode="json") for a in
                        assignment_service.assignments_of(session=session, course_id=course.id)],
        "members": [m.model_dump(mode="json") for m in roster],
        "not_joined": sum(1 for m in roster if m.learner_id is None),
        "extensions": [e.model_dump(mode="json") for e in
                       extensions.extensions_of(session=session, course_id=course.id)],
        "lti": lti_links.course_lti_summary(session=session, course_id=course.id),
        "titles": _titles(catalog),
        "problems": sorted(catalog.entries),
    }


@pages.get("/{course_id}")
async def course_page(course_id: str, request: Request, state: StateDep, catalog: CatalogDep,
                      instructor: InstructorDep, note: str | None = None) -> Response:
    context = await with_course(state, instructor, course_id, lambda s, c: course_context(s, c, catalog))
    return _page(request, "courses/instructor_course.html", instructor,
                 {**context, "note": NOTES.get(note or ""), "error": None})


NOTES = {
    "imported": "Roster imported.",
    "added": "Instructor added.",
    "removed": "Instructor removed.",
    "code": "New join code made; the old one no longer works.",
    "synced": "Roster synchronised with the platform.",
}


async def _course_error(request: Request, state: StateDep, catalog: ProblemCatalog, instructor: SignedIn,
                        course_id: str, error: AppError, **extra: Any) -> Response:
    context = await with_course(state, instructor, course_id, lambda s, c: course_context(s, c, catalog))
    return _page(request, "courses/instructor_course.html", instructor,
                 {**context, "note": None, "error": error.detail, **extra}, error.status_code)


@pages.post("/{course_id}/roster")
async def import_roster(course_id: str, request: Request, state: StateDep, catalog: CatalogDep,
                        instructor: InstructorDep) -> Response:
    form = await read_checked_form(request, instructor, limit=MAX_ROSTER_FORM_BYTES)
    text = form.get("roster", "")
    try:
        result = await with_course(state, instructor, course_id, lambda s, c: members.import_roster(
            session=s, course=c, text=text, actor=instructor.email))
    except AppError as exc:
        return await _course_error(request, state, catalog, instructor, course_id, exc, roster_text=text)
    if result.problems:
        return await _course_error(
            request, state, catalog, instructor, course_id,
            BadRequest("Nothing was imported: " + "; ".join(result.problems[:20])
                       + (f"; and {len(result.problems) - 20} more" if len(result.problems) > 20 else "")),
            roster_text=text)
    return _back(course_id, "roster", "imported")


@pages.post("/{course_id}/instructors")
async def add_instructor(course_id: str, request: Request, state: StateDep, catalog: CatalogDep,
                         instructor: InstructorDep) -> Response:
    form = await read_checked_form(request, instructor)
    removing = form.get("action") == "remove"
    try:
        await with_course(state, instructor, course_id, lambda s, c: (
            courses.remove_course_instructor if removing else courses.add_course_instructor)(
            session=s, course=c, email=form.get("email", ""), actor=instructor.email))
    except AppError as exc:
        return await _course_error(request, state, catalog, instructor, course_id, exc)
    return _back(course_id, "instructors", "removed" if removing else "added")


@pages.post("/{course_id}/join-code")
async def new_join_code(course_id: str, request: Request, state: StateDep, instructor: InstructorDep) -> Response:
    await read_checked_form(request, instructor)
    await with_course(state, instructor, course_id,
                      lambda s, c: courses.rotate_join_code(session=s, course=c, actor=instructor.email))
    return _back(course_id, "join", "code")


# --- assignments ----------------------------------------------------------------------------------------------


def _assignment_in(form: FormData) -> assignment_service.AssignmentIn:
    def percent(name: str) -> int:
        raw = form.get(name, "").strip() or "0"
        try:
            return int(raw)
        except ValueError:
            raise BadRequest(f"The {name.replace('_', ' ')} is a whole percentage, not '{raw[:20]}'.") from None

    problems = [slug for slug in form.all("problems") if slug]
    order = form.get("order", "").strip()
    if order:  # a typed order ("moco, simclr") wins over the ticked boxes' order
        problems = [slug.strip() for slug in order.replace("\n", ",").split(",") if slug.strip()]
    return assignment_service.AssignmentIn(
        title=form.get("title", "")[:200], opens_at=form.get("opens_at", ""), due_at=form.get("due_at", ""),
        problems=problems, late_policy=form.get("late_policy", "none"),
        penalty_percent=percent("penalty_percent"), floor_percent=percent("floor_percent"))


def _assignment_form_context(course: Course, catalog: ProblemCatalog, values: dict[str, Any] | None,
                             assignment_id: str | None) -> dict[str, Any]:
    return {"course": _course_out(course), "titles": _titles(catalog), "problems": sorted(catalog.entries),
            "values": values, "assignment_id": assignment_id}


@pages.get("/{course_id}/assignments/new")
async def new_assignment(course_id: str, request: Request, state: StateDep, catalog: CatalogDep,
                         instructor: InstructorDep) -> Response:
    context = await with_course(state, instructor, course_id,
                                lambda s, c: _assignment_form_context(c, catalog, None, None))
    return _page(request, "courses/instructor_assignment_form.html", instructor, {**context, "error": None})


@pages.post("/{course_id}/assignments")
async def create_assignment(course_id: str, request: Request, state: StateDep, catalog: CatalogDep,
                            instructor: InstructorDep) -> Response:
    form = await read_checked_form(request, instructor)

    def create(session: Session, course: Course) -> str:
        return assignment_service.create_assignment(session=session, course=course, values=_assignment_in(form),
                                                    known_problems=catalog.entries, actor=instructor.email).id

    try:
        assignment_id = await with_course(state, instructor, course_id, create)
    except AppError as exc:
        context = await with_course(state, instructor, course_id,
                                    lambda s, c: _assignment_form_context(c, catalog, _form_values(form), None))
        return _page(request, "courses/instructor_assignment_form.html", instructor,
                     {**context, "error": exc.detail}, exc.status_code)
    return RedirectResponse(f"/instructor/courses/{course_id}/assignments/{assignment_id}", status_code=303)


def _form_values(form: FormData) -> dict[str, Any]:
    return {"title": form.get("title", ""), "opens_at": form.get("opens_at", ""), "due_at": form.get("due_at", ""),
            "late_policy": form.get("late_policy", "none"), "penalty_percent": form.get("penalty_percent", "0"),
            "floor_percent": form.get("floor_percent", "0"), "problems": form.all("problems"),
            "order": form.get("order", "")}


def assignment_context(session: Session, course: Course, catalog: ProblemCatalog, assignment_id: str
                       ) -> dict[str, Any]:
    assignment = assignment_service.assignment_in(session=session, course=course, assignment_id=assignment_id)
    out = assignment_service.as_out(session, assignment)
    values = {**out.model_dump(mode="json"), "opens_at": local_input(out.opens_at, course.time_zone),
              "due_at": local_input(out.due_at, course.time_zone), "order": ", ".join(out.problems)}
    granted = [e.model_dump(mode="json") for e in extensions.extensions_of(session=session, course_id=course.id)
               if e.assignment_id == assignment_id]
    return {**_assignment_form_context(course, catalog, values, assignment_id), "assignment": out.model_dump(
        mode="json"), "extensions": granted,
        "members": [m.model_dump(mode="json") for m in members.members_of(session=session, course_id=course.id)],
        "extension_default": local_input(out.due_at, course.time_zone)}


@pages.get("/{course_id}/assignments/{assignment_id}")
async def assignment_page(course_id: str, assignment_id: str, request: Request, state: StateDep,
                          catalog: CatalogDep, instructor: InstructorDep) -> Response:
    context = await with_course(state, instructor, course_id,
                                lambda s, c: assignment_context(s, c, catalog, assignment_id))
    return _page(request, "courses/instructor_assignment.html", instructor, {**context, "error": None})


async def _assignment_error(request: Request, state: StateDep, catalog: ProblemCatalog, instructor: SignedIn,
                            course_id: str, assignment_id: str, error: AppError) -> Response:
    context = await with_course(state, instructor, course_id,
                                lambda s, c: assignment_context(s, c, catalog, assignment_id))
    return _page(request, "courses/instructor_assignment.html", instructor, {**context, "error": error.detail},
                 error.status_code)


@pages.post("/{course_id}/assignments/{assignment_id}")
async def update_assignment(course_id: str, assignment_id: str, request: Request, state: StateDep,
                            catalog: CatalogDep, instructor: InstructorDep) -> Response:
    form = await read_checked_form(request, instructor)

    def update(session: Session, course: Course) -> None:
        if form.get("action") == "delete":
            assignment_service.delete_assignment(session=session, course=course, assignment_id=assignment_id,
                                                 actor=instructor.email)
            return
        assignment_service.update_assignment(session=session, course=course, assignment_id=assignment_id,
                                             values=_assignment_in(form), known_problems=catalog.entries,
                                             actor=instructor.email)
        passback.rescore_assignment(session=session, assignment_id=assignment_id,
                                    cause=f"assignment:{assignment_id}:{passback.cause_stamp()}")

    try:
        await with_course(state, instructor, course_id, update)
    except AppError as exc:
        return await _assignment_error(request, state, catalog, instructor, course_id, assignment_id, exc)
    if form.get("action") == "delete":
        return _back(course_id, "assignments")
    return RedirectResponse(f"/instructor/courses/{course_id}/assignments/{assignment_id}", status_code=303)


@pages.post("/{course_id}/assignments/{assignment_id}/extensions")
async def grant_extension(course_id: str, assignment_id: str, request: Request, state: StateDep,
                          catalog: CatalogDep, instructor: InstructorDep) -> Response:
    form = await read_checked_form(request, instructor)
    member_id = form.get("member_id", "")

    def change(session: Session, course: Course) -> None:
        if form.get("action") == "revoke":
            extensions.revoke_extension(session=session, course=course, assignment_id=assignment_id,
                                        member_id=member_id, reason=form.get("reason", ""), actor=instructor.email)
        else:
            extensions.grant_extension(session=session, course=course, assignment_id=assignment_id,
                                       member_id=member_id, due_at=form.get("due_at", ""),
                                       reason=form.get("reason", ""), actor=instructor.email)
        passback.rescore_member(session=session, course_id=course.id, member_id=member_id,
                                cause=f"extension:{assignment_id}:{passback.cause_stamp()}")

    try:
        await with_course(state, instructor, course_id, change)
    except AppError as exc:
        return await _assignment_error(request, state, catalog, instructor, course_id, assignment_id, exc)
    return RedirectResponse(f"/instructor/courses/{course_id}/assignments/{assignment_id}#extensions",
                            status_code=303)


# --- the gradebook --------------------------------------------------------------------------------------------


def gradebook_context(session: Session, course: Course, catalog: ProblemCatalog,
                      assignment_id: str | None) -> dict[str, Any]:
    book = gradebook.build_gradebook(session=session, course=course,
                                     assignment_ids=[assignment_id] if assignment_id else None)
    every = assignment_service.assignments_of(session=session, course_id=course.id)
    return {"course": _course_out(course), "book": book, "titles": _titles(catalog), "every_assignment": every,
            "selected": assignment_id or "", "grid": [_grid_row(course.id, row) for row in book.rows]}


def _grid_row(course_id: str, row: gradebook.GradebookRow) -> dict[str, Any]:
    """A gradebook row as the page prints it, formatted here: a Jinja macro call per cell made the page of a
    500 x 20 gradebook take seconds to render."""
    member = row.member
    cells = []
    for result in row.results:
        for cell in result.cells:
            state = ("late" if cell.late else "solved" if cell.solved else "missing" if cell.missing else "open")
            flags = " ".join(filter(None, [f"{cell.days_late}d late" if cell.late else "",
                                           "R" if cell.revealed_then_solved else "",
                                           f"{cell.attempts}×" if cell.attempts else ""]))
            words = {"late": "solved late", "solved": "solved", "missing": "missing", "open": "not solved"}[state]
            cells.append({"id": f"cell-{member.id}-{cell.problem}", "css": f"cell--{state}" + (
                " cell--override" if cell.override else ""),
                "href": f"/instructor/courses/{course_id}/gradebook/{result.assignment_id}/{member.id}/{cell.problem}",
                "text": f"{100 * cell.score:g}%", "flags": flags,
                "words": words + (", manual score" if cell.override else "")})
        cells.append({"total": f"{result.points:g}/{len(result.cells)}"})
    meta = " · ".join(filter(None, [member.student_id or "", "" if member.joined_at else "not yet joined",
                                    "extension" if any(r.extended for r in row.results) else ""]))
    return {"name": member.name or member.email or member.student_id or member.id, "meta": meta, "cells": cells}


@pages.get("/{course_id}/gradebook")
async def gradebook_page(course_id: str, request: Request, state: StateDep, catalog: CatalogDep,
                         instructor: InstructorDep, assignment: str | None = None) -> Response:
    context = await with_course(state, instructor, course_id,
                                lambda s, c: gradebook_context(s, c, catalog, assignment or None))
    return _page(request, "courses/instructor_gradebook.html", instructor, context)


def cell_context(session: Session, course: Course, catalog: ProblemCatalog, assignment_id: str, member_id: str,
                 problem: str) -> dict[str, Any]:
    extensions.member_in(session=session, course=course, member_id=member_id)
    book = gradebook.build_gradebook(session=session, course=course, member_ids=[member_id],
                                     assignment_ids=[assignment_id])
    if not book.assignments:
        assignment_service.assignment_in(session=session, course=course, assignment_id=assignment_id)
    row = book.rows[0]
    cell = next((c for c in row.results[0].cells if c.problem == problem), None)
    if cell is None:
        raise BadRequest(f"The assignment has no problem '{problem}'.")
    return {"course": _course_out(course), "assignment": book.assignments[0], "member": row.member,
            "result": row.results[0], "cell": cell, "titles": _titles(catalog)}


@pages.get("/{course_id}/gradebook/{assignment_id}/{member_id}/{problem}")
async def cell_page(course_id: str, assignment_id: str, member_id: str, problem: str, request: Request,
                    state: StateDep, catalog: CatalogDep, instructor: InstructorDep) -> Response:
    context = await with_course(state, instructor, course_id,
                                lambda s, c: cell_context(s, c, catalog, assignment_id, member_id, problem))
    return _page(request, "courses/instructor_cell.html", instructor, {**context, "error": None})


@pages.post("/{course_id}/gradebook/{assignment_id}/{member_id}/{problem}")
async def override_cell(course_id: str, assignment_id: str, member_id: str, problem: str, request: Request,
                        state: StateDep, catalog: CatalogDep, instructor: InstructorDep) -> Response:
    form = await read_checked_form(request, instructor)

    def change(session: Session, course: Course) -> None:
        if form.get("action") == "clear":
            overrides.clear_override(session=session, course=course, assignment_id=assignment_id,
                                     member_id=member_id, problem=problem, reason=form.get("reason", ""),
                                     actor=instructor.email)
        else:
            raw = form.get("score", "").strip().rstrip("%")
            try:
                score = float(raw)
            except ValueError:
                raise BadRequest(f"A score is a percentage from 0 to 100, not '{raw[:20]}'.") from None
            overrides.set_override(session=session, course=course, assignment_id=assignment_id,
                                   member_id=member_id, problem=problem, score_percent=score,
                                   reason=form.get("reason", ""), actor=instructor.email)
        passback.rescore_member(session=session, course_id=course.id, member_id=member_id,
                                cause=f"override:{assignment_id}:{problem}:{passback.cause_stamp()}")

    try:
        await with_course(state, instructor, course_id, change)
    except AppError as exc:
        context = await with_course(state, instructor, course_id,
                                    lambda s, c: cell_context(s, c, catalog, assignment_id, member_id, problem))
        return _page(request, "courses/instructor_cell.html", instructor, {**context, "error": exc.detail},
                     exc.status_code)
    return RedirectResponse(f"/instructor/courses/{course_id}/gradebook?assignment={assignment_id}"
                            f"#cell-{member_id}-{problem}", status_code=303)


# --- statistics and the audit log -----------------------------------------------------------------------------


@pages.get("/{course_id}/problems/{slug}")
async def course_problem_page(course_id: str, slug: str, request: Request, state: StateDep, catalog: CatalogDep,
                              instructor: InstructorDep) -> Response:
    entry = catalog.entry(slug)
    course_out, numbers = await with_course(state, instructor, course_id, lambda s, c: (
        _course_out(c), course_problem_stats(session=s, course_id=c.id, problem=entry.slug)))
    titles = {check.id: check.title for check in entry.problem.checks}
    return _page(request, "courses/instructor_problem.html", instructor, {
        "course": course_out, "problem": entry.public(), "stats": numbers.model_dump(mode="json"), "titles": titles})


@pages.get("/{course_id}/audit")
async def audit_page(course_id: str, request: Request, state: StateDep, instructor: InstructorDep) -> Response:
    course_out, rows = await with_course(state, instructor, course_id, lambda s, c: (
        _course_out(c), audit.entries(session=s, course_id=c.id)))
    return _page(request, "courses/instructor_audit.html", instructor,
                 {"course": course_out, "entries": [row.model_dump(mode="json") for row in rows]})


# --- API ------------------------------------------------------------------------------------------------------


@api.get("", response_model=list[courses.CourseSummary])
async def api_courses(state: StateDep, instructor: InstructorDep) -> list[courses.CourseSummary]:
    """The courses this instructor runs (and only those)."""
    return await in_session(state, lambda s: courses.courses_of(session=s, instructor_id=instructor.instructor_id))


@api.get("/{course_id}/members", response_model=list[members.MemberOut])
async def api_members(course_id: str, state: StateDep, instructor: InstructorDep) -> list[members.MemberOut]:
    """The roster: every member, joined (`learner_id`, `joined_at`) or not yet."""
    return await with_course(state, instructor, course_id, lambda s, c: members.members_of(session=s,
                                                                                             course_id=c.id))


@api.post("/{course_id}/roster", openapi_extra={
    "requestBody": {"content": {"text/csv": {"schema": {"type": "string"}}}, "required": True}})
async def api_import_roster(course_id: str, request: Request, state: StateDep,
                            instructor: InstructorDep) -> JSONResponse:
    """Import a roster: a CSV body with a header row naming `name` and `student id` and/or `email`. Rows are
    matched to members by student id, then email. Any row with a problem: nothing is imported (422)."""
    text = (await request.body()).decode("utf-8", errors="replace")
    result = await with_course(state, instructor, course_id, lambda s, c: members.import_roster(
        session=s, course=c, text=text, actor=instructor.email))
    body = {"added": result.added, "updated": result.updated, "unchanged": result.unchanged,
            "problems": result.problems}
    return JSONResponse(body, status_code=422 if result.problems else 200)


@api.get("/{course_id}/gradebook", response_model=gradebook.Gradebook)
async def api_gradebook(course_id: str, state: StateDep, instructor: InstructorDep) -> gradebook.Gradebook:
    """Members x problems with every fact of each cell (solved, when, attempts, late, score after the policy,
    revealed-then-solved, override)."""
    return await with_course(state, instructor, course_id,
                             lambda s, c: gradebook.build_gradebook(session=s, course=c))


def _layout(value: str) -> gradebook_export.Layout:
    if value not in ("cells", "scores"):
        raise BadRequest("layout is 'cells' (one row per learner and problem) or 'scores' (one row per learner).")
    return "cells" if value == "cells" else "scores"


@api.get("/{course_id}/gradebook.csv", response_class=StreamingResponse)
async def api_gradebook_csv(course_id: str, state: StateDep, instructor: InstructorDep,
                            layout: str = "cells") -> StreamingResponse:
    """The gradebook as CSV (UTF-8 with a byte order mark, CRLF, formula-like text neutralised)."""
    chosen = _layout(layout)
    book = await with_course(state, instructor, course_id, lambda s, c: gradebook.build_gradebook(session=s,
                                                                                                    course=c))
    return StreamingResponse(gradebook_export.as_csv(book, chosen), media_type="text/csv; charset=utf-8",
                             headers={"Content-Disposition":
                                      f'attachment; filename="gradebook-{course_id[:8]}-{chosen}.csv"'})


@api.get("/{course_id}/gradebook.json")
async def api_gradebook_json(course_id: str, state: StateDep, instructor: InstructorDep,
                             layout: str = "cells") -> Response:
    """The same rows as gradebook.csv, as JSON."""
    chosen = _layout(layout)
    book = await with_course(state, instructor, course_id, lambda s, c: gradebook.build_gradebook(session=s,
                                                                                                    course=c))
    return Response(gradebook_export.as_json(book, chosen), media_type="application/json")


@api.get("/{course_id}/audit", response_model=list[audit.AuditOut])
async def api_audit(course_id: str, state: StateDep, instructor: InstructorDep) -> list[audit.AuditOut]:
    """The course's audit log, newest first."""
    return await with_course(state, instructor, course_id, lambda s, c: audit.entries(session=s, course_id=c.id))


@api.get("/{course_id}/problems/{slug}/stats")
async def api_course_problem_stats(course_id: str, slug: str, state: StateDep, catalog: CatalogDep,
                                   instructor: InstructorDep) -> Any:
    """The dashboard's per-problem statistics, over this course's members only."""
    entry = catalog.entry(slug)
    return await with_course(state, instructor, course_id, lambda s, c: course_problem_stats(
        session=s, course_id=c.id, problem=entry.slug))
