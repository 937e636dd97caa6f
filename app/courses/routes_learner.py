"""The learner's side of courses: their courses (`/courses`), joining with a code or a link (`/join/CODE`), a
course's page (assignments, due times, progress) and an assignment's page (its problems, the due time in the
learner's zone with a countdown, the late policy in words), and the optional account (`/account`).

Forms are plain HTML (the pages work without JavaScript), protected like the rest of the learner's side by the
cross-site write guard. Minting an identity costs something: sign-ups and joins are limited per network address,
sign-ins per account and per address: members and account holders are vouched for (app.trust), so minting one
must cost something."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.addresses import client_address
from app.courses import accounts, courses, members
from app.courses.assignments import AssignmentOut
from app.courses.gradebook import AssignmentResult, build_gradebook
from app.courses.models import Course
from app.deps import CatalogDep, StateDep, in_session, learner_for
from app.errors import AppError, Forbidden, NotFound, TooManyRequests
from app.identity import STATE_KEY, LearnerCookie
from app.models import new_id, utcnow
from app.ratelimit import RateLimit
from app.state import AppState
from app.templating import render

MAX_FORM_BYTES = 8_192
WINDOW_S = 3600
SIGN_UPS_PER_ADDRESS = 60  # an hour: a lab of thirty signing up at once fits twice
JOINS_PER_ADDRESS = 120
SIGN_INS_PER_ACCOUNT = 10
SIGN_INS_PER_ADDRESS = 120

pages = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)
api = APIRouter(prefix="/api", tags=["courses"])


@dataclass
class CourseLimits:
    sign_ups: RateLimit
    joins: RateLimit
    sign_ins_per_account: RateLimit
    sign_ins_per_address: RateLimit


class _LimitsHolder:
    def __init__(self) -> None:
        self._limits: CourseLimits | None = None
        self._lock = threading.Lock()

    def get(self, state: AppState) -> CourseLimits:
        with self._lock:
            if self._limits is None:
                self._limits = CourseLimits(
                    sign_ups=state.rate_limit("learner-sign-ups", limit=SIGN_UPS_PER_ADDRESS, window_s=WINDOW_S),
                    joins=state.rate_limit("course-joins", limit=JOINS_PER_ADDRESS, window_s=WINDOW_S),
                    sign_ins_per_account=state.rate_limit("learner-sign-in-account", limit=SIGN_INS_PER_ACCOUNT,
                                                          window_s=WINDOW_S),
                    sign_ins_per_address=state.rate_limit("learner-sign-in-address", limit=SIGN_INS_PER_ADDRESS,
                                                          window_s=WINDOW_S))
            return self._limits


def install(app: FastAPI) -> None:
    from app.courses import routes_instructor

    app.state.course_limits = _LimitsHolder()
    app.include_router(pages)
    app.include_router(api)
    app.include_router(routes_instructor.pages)
    app.include_router(routes_instructor.api)


def limits(request: Request) -> CourseLimits:
    holder: _LimitsHolder = request.app.state.course_limits
    return holder.get(request.app.state.paperlab)


def take(limit: RateLimit, key: str, what: str) -> None:
    wait = limit.take(key)
    if wait is not None:
        raise TooManyRequests(f"Too many {what} from your network address; try again in {wait} seconds.",
                              retry_after=wait)


async def read_form(request: Request) -> dict[str, str]:
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise Forbidden(f"A form may be at most {MAX_FORM_BYTES:,} bytes.")
    return {k: v[0] for k, v in parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True).items()}


def _become(request: Request, learner_id: str) -> None:
    """This response makes the browser `learner_id` (the learner cookie middleware sets the cookie)."""
    identity: LearnerCookie = getattr(request.state, STATE_KEY)
    identity.learner_id, identity.minted = learner_id, True


# --- my courses and joining -----------------------------------------------------------------------------------


class CourseProgress(BaseModel):
    course_id: str
    title: str
    assignments: list[AssignmentOut]
    results: list[AssignmentResult]


def _member_course(session: Session, course_id: str, learner_id: str) -> tuple[Course, str]:
    course = session.get(Course, course_id)
    member = members.member_of_learner(session=session, course_id=course_id, learner_id=learner_id) \
        if course is not None else None
    if course is None or member is None:
        raise NotFound("You are not in this course. Join it with the code your instructor gave you at /courses.")
    return course, member.id


def progress_of(session: Session, course_id: str, learner_id: str) -> CourseProgress:
    course, member_id = _member_course(session, course_id, learner_id)
    book = build_gradebook(session=session, course=course, member_ids=[member_id])
    return CourseProgress(course_id=course.id, title=course.title, assignments=book.assignments,
                          results=book.rows[0].results if book.rows else [])


@pages.get("/courses")
async def my_courses(request: Request, state: StateDep) -> Response:
    learner = learner_for(request)

    def load(session: Session) -> dict[str, Any]:
        joined = members.courses_of_learner(session=session, learner_id=learner)
        return {"courses": [{"id": c.id, "title": c.title} for c, _ in joined],
                "account": accounts.account_of(session=session, learner_id=learner)}

    return render(request, "courses/my_courses.html", {**await in_session(state, load), "error": None,
                                                       "code": request.query_params.get("code", "")})


@pages.get("/join/{code}")
async def join_link(code: str, request: Request, state: StateDep) -> Response:
    """A join link only asks (a link preview must not join anyone); joining is the form's POST."""
    course = await in_session(state, lambda s: courses.course_by_code(session=s, code=code))
    return render(request, "courses/join.html", {"course": {"title": course.title},
                                                 "code": courses.display_join_code(course.join_code), "error": None})


@pages.post("/courses/join")
async def join(request: Request, state: StateDep) -> Response:
    form = await read_form(request)
    learner = learner_for(request)
    code = form.get("code", "")
    try:
        await run_in_threadpool(take, limits(request).joins, client_address(request), "course joins")
        course_id = await in_session(state, lambda s: members.join(
            session=s, course=courses.course_by_code(session=s, code=code), learner_id=learner,
            name=form.get("name", ""), student_id=form.get("student_id") or None,
            email=form.get("email") or None).course_id)
    except AppError as exc:
        return render(request, "courses/join.html", {"course": None, "code": code, "error": exc.detail,
                                                     "name": form.get("name", ""),
                                                     "student_id": form.get("student_id", "")},
                      status_code=exc.status_code)
    return RedirectResponse(f"/courses/{course_id}", status_code=303)


@pages.get("/courses/{course_id}")
async def course_page(course_id: str, request: Request, state: StateDep, catalog: CatalogDep) -> Response:
    learner = learner_for(request)
    progress = await in_session(state, lambda s: progress_of(s, course_id, learner))
    titles = {slug: entry.public()["title"] for slug, entry in catalog.entries.items()}
    return render(request, "courses/course.html", {"progress": progress, "titles": titles, "now": utcnow(),
                                                   "unbound": request.query_params.get("unbound") == "1"})


@pages.get("/courses/{course_id}/assignments/{assignment_id}")
async def assignment_page(course_id: str, assignment_id: str, request: Request, state: StateDep,
                          catalog: CatalogDep) -> Response:
    learner = learner_for(request)
    progress = await in_session(state, lambda s: progress_of(s, course_id, learner))
    index = next((i for i, a in enumerate(progress.assignments) if a.id == assignment_id), None)
    if index is None:
        raise NotFound("This course has no such assignment.")
    titles = {slug: entry.public()["title"] for slug, entry in catalog.entries.items()}
    return render(request, "courses/assignment.html", {
        "progress": progress, "assignment": progress.assignments[index], "result": progress.results[index],
        "titles": titles, "now": utcnow()})


@api.get("/courses", response_model=list[dict[str, str]])
async def api_my_courses(request: Request, state: StateDep) -> list[dict[str, str]]:
    """The courses this learner is in."""
    learner = learner_for(request)
    return await in_session(state, lambda s: [{"id": c.id, "title": c.title} for c, _ in
                                              members.courses_of_learner(session=s, learner_id=learner)])


@api.get("/courses/{course_id}", response_model=CourseProgress)
async def api_course_progress(course_id: str, request: Request, state: StateDep) -> CourseProgress:
    """This learner's progress in one course: each assignment with the due time in force (an extension's, if
    given) and each problem's cell (solved, when, attempts, late, score after the policy)."""
    learner = learner_for(request)
    return await in_session(state, lambda s: progress_of(s, course_id, learner))


# --- the account ----------------------------------------------------------------------------------------------


def _account_context(session: Session, learner: str) -> dict[str, Any]:
    account = accounts.account_of(session=session, learner_id=learner)
    return {"account": account, "anonymous_attempts": accounts.anonymous_attempts(session=session,
                                                                                   learner_id=learner)}


async def _account_page(request: Request, state: AppState, *, error: str | None = None, status_code: int = 200,
                        note: str | None = None) -> Response:
    learner = learner_for(request)
    context = await in_session(state, lambda s: _account_context(s, learner))
    return render(request, "courses/account.html", {**context, "error": error, "note": note},
                  status_code=status_code)


@pages.get("/account")
async def account_page(request: Request, state: StateDep) -> Response:
    return await _account_page(request, state, note=request.query_params.get("note"))


@pages.post("/account/signup")
async def sign_up(request: Request, state: StateDep) -> Response:
    form = await read_form(request)
    learner = learner_for(request)
    if form.get("password", "") != form.get("password_again", ""):
        return await _account_page(request, state, error="The two passwords differ.", status_code=400)
    try:
        await run_in_threadpool(take, limits(request).sign_ups, client_address(request), "sign-ups")
        await in_session(state, lambda s: accounts.sign_up(session=s, learner_id=learner,
                                                           email=form.get("email", ""),
                                                           password=form.get("password", "")))
    except AppError as exc:
        return await _account_page(request, state, error=exc.detail, status_code=exc.status_code)
    _become(request, learner)  # re-sent, so that the cookie of a browser that had none is set now
    return RedirectResponse("/account?note=created", status_code=303)


@pages.post("/account/signin")
async def sign_in(request: Request, state: StateDep) -> Response:
    form = await read_form(request)
    email, address = form.get("email", "").strip().lower(), client_address(request)
    budget = limits(request)
    try:
        await run_in_threadpool(take, budget.sign_ins_per_address, address, "sign-in attempts")
        await run_in_threadpool(take, budget.sign_ins_per_account, email, "sign-in attempts for this account")
    except AppError as exc:
        return await _account_page(request, state, error=exc.detail, status_code=exc.status_code)
    account = await in_session(state, lambda s: accounts.authenticate(session=s, email=email,
                                                                      password=form.get("password", "")))
    if account is None:
        return await _account_page(request, state, status_code=401,
                                   error="That email and password do not match a learner account.")
    budget.sign_ins_per_account.give_back(email)
    budget.sign_ins_per_address.give_back(address)
    _become(request, account.learner_id)
    return RedirectResponse("/courses", status_code=303)


@pages.post("/account/signout")
async def sign_out(request: Request) -> Response:
    """This browser becomes a new anonymous learner; the account's work stays with the account."""
    await read_form(request)
    _become(request, new_id())
    return RedirectResponse("/account?note=signed-out", status_code=303)
