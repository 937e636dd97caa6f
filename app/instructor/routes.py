"""The instructor's pages (/instructor) and API (/api/instructor). Every route but the sign-in form depends on
`require_instructor` through its router, so a route added here cannot forget the guard (a test walks the app's
routes to prove it)."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, StreamingResponse
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.addresses import client_address
from app.deps import CatalogDep, StateDep, in_session
from app.errors import NotFound
from app.instructor import auth, check_reports, export, profile, stats
from app.instructor.accounts import authenticate
from app.instructor.auth import (
    CSRF_FIELD,
    LOGIN_NONCE_COOKIE,
    SESSION_COOKIE,
    SESSION_TTL,
    InstructorDep,
    InstructorsOnly,
    InstructorState,
    SignInRequired,
)
from app.instructor.battery import battery_hash
from app.instructor.regrade import RegradeFeeder, RegradeProgress, plan_regrades, progress
from app.instructor.views import learner_attempts, submission_context
from app.redirects import local_path
from app.templating import render

LOGIN_PATH = "/instructor/login"
LOGIN_NONCE_MAX_AGE_S = 3600

public = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)
guarded = [Depends(auth.require_instructor)]
pages = APIRouter(prefix="/instructor", include_in_schema=False, default_response_class=HTMLResponse,
                  dependencies=guarded)
api = APIRouter(prefix="/api/instructor", tags=["instructor"], dependencies=guarded)


def install(app: FastAPI) -> None:
    """Everything the instructor side adds to the app: its routers, its in-memory state, and the redirect of a
    signed-out browser to the sign-in form."""
    app.state.instructor = InstructorState()
    app.include_router(public)
    app.include_router(pages)
    app.include_router(api)
    app.include_router(profile.router)
    app.include_router(check_reports.router)
    app.add_exception_handler(SignInRequired, _sign_in_required)
    app.add_exception_handler(InstructorsOnly, _instructors_only)


async def _instructors_only(request: Request, exc: Exception) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": str(exc)}, status_code=403)
    return render(request, "error.html", {"status_code": 403, "title": InstructorsOnly.title, "message": str(exc),
                                          "sign_in_url": f"{LOGIN_PATH}?next={quote(request.url.path)}"},
                  status_code=403)  # fmt: skip


async def _sign_in_required(request: Request, exc: Exception) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": str(exc)}, status_code=401, headers={"WWW-Authenticate": "Cookie"})
    return RedirectResponse(f"{LOGIN_PATH}?next={quote(request.url.path)}", status_code=303)


def _safe_next(value: str | None) -> str:
    """Only a path on the instructor side: never another site (app.redirects), never a learner's page."""
    return local_path(value, under=("/instructor",), default="/instructor")


# --- sign in and out ------------------------------------------------------------------------------------------


@public.get(LOGIN_PATH)
async def login_form(request: Request, state: StateDep, next: str | None = None) -> Response:
    return _login_page(request, state, next=_safe_next(next))


def _login_page(request: Request, state: StateDep, *, next: str, error: str | None = None,
                status_code: int = 200) -> Response:
    nonce = secrets.token_urlsafe(24)
    token = auth.login_csrf_token(auth.instructor_state(request).secret(state), nonce)
    response = render(request, "instructor/login.html",
                      {"csrf_field": CSRF_FIELD, "csrf_token": token, "next": next, "error": error},
                      status_code=status_code)
    response.headers.append(
        "Set-Cookie", auth.cookie_header(request, LOGIN_NONCE_COOKIE, nonce, max_age=LOGIN_NONCE_MAX_AGE_S,
                                         path=LOGIN_PATH)
    )
    return response


@public.post(LOGIN_PATH)
async def login(request: Request, state: StateDep) -> Response:
    form = await auth.read_form(request)
    memory = auth.instructor_state(request)
    auth.check_login_csrf(form, secret=memory.secret(state), nonce=request.cookies.get(LOGIN_NONCE_COOKIE))
    email, password, address = form.get("email", ""), form.get("password", ""), client_address(request)
    limits = memory.sign_in_limits(state)
    # Off the event loop: in Redis, counting is a network round trip (and a Redis that went away a timeout).
    await run_in_threadpool(auth.take_login_attempt, limits, email=email, address=address)

    def sign_in(session: Session) -> str | None:
        instructor = authenticate(session=session, email=email, password=password)
        return auth.start_session(session=session, instructor=instructor) if instructor else None

    token = await in_session(state, sign_in)
    if token is None:
        return _login_page(request, state, next=_safe_next(form.get("next")), status_code=401,
                           error="That email and password do not match an instructor account.")
    await run_in_threadpool(auth.forgive_login_attempt, limits, email=email, address=address)
    response = RedirectResponse(_safe_next(form.get("next")), status_code=303)
    response.headers.append("Set-Cookie", auth.cookie_header(
        request, SESSION_COOKIE, token, max_age=int(SESSION_TTL.total_seconds())))
    response.headers.append("Set-Cookie", auth.cookie_header(request, LOGIN_NONCE_COOKIE, "", max_age=0,
                                                             path=LOGIN_PATH))
    return response


@pages.post("/logout")
async def logout(request: Request, state: StateDep, instructor: InstructorDep) -> Response:
    auth.check_csrf(await auth.read_form(request), instructor)
    token = request.cookies.get(SESSION_COOKIE, "")
    await in_session(state, lambda session: auth.end_session(session=session, token=token))
    response = RedirectResponse(LOGIN_PATH, status_code=303)
    response.headers.append("Set-Cookie", auth.cookie_header(request, SESSION_COOKIE, "", max_age=0))
    return response


# --- pages ----------------------------------------------------------------------------------------------------


def _page(request: Request, name: str, instructor: auth.SignedIn, context: dict[str, Any]) -> Response:
    return render(request, name, {"instructor": instructor, "csrf_field": CSRF_FIELD, **context})


@pages.get("")
async def dashboard(request: Request, state: StateDep, catalog: CatalogDep, instructor: InstructorDep,
                    regrade: str = "") -> Response:
    """`?regrade=nothing` / `?regrade=planned-N`: what the last press of the Regrade button did."""
    overviews, regrades = await in_session(
        state, lambda session: (stats.problem_overviews(session=session, problems=list(catalog.entries)),
                                progress(session=session))
    )
    rows = [{**o.model_dump(mode="json"), "title": catalog.entries[o.problem].public()["title"],
             "battery": battery_hash(catalog[o.problem])} for o in overviews]
    return _page(request, "instructor/dashboard.html", instructor,
                 {"problems": rows, "regrades": {**regrades.model_dump(), "running": regrades.running},
                  "regrade_outcome": _regrade_outcome(regrade)})


def _regrade_outcome(value: str) -> str | None:
    """The sentence the dashboard shows after the Regrade button (only for the two forms the button sends)."""
    if value == "nothing":
        return "Nothing to regrade: every learner's latest attempt was graded by each problem as it is now."
    count = value.removeprefix("planned-")
    if value.startswith("planned-") and count.isdigit():
        return f"{count} stale {'attempt' if count == '1' else 'attempts'} queued for regrading."
    return None


@pages.post("/regrade")
async def start_regrade(request: Request, state: StateDep, instructor: InstructorDep) -> Response:
    """Plan the regrading of every stale latest attempt, and start feeding it to the grading queue."""
    auth.check_csrf(await auth.read_form(request), instructor)
    planned, under_way = await in_session(
        state, lambda session: (plan_regrades(session=session, problems=state.catalog), progress(session=session))
    )
    if planned == 0 and not under_way.running:  # say so, rather than reload the page unchanged
        return RedirectResponse("/instructor?regrade=nothing#regrade", status_code=303)
    memory = auth.instructor_state(request)
    if memory.feeder is None:
        memory.feeder = RegradeFeeder(session_factory=state.session_factory, backend=state.backend)
    memory.feeder.ensure_running()
    return RedirectResponse(f"/instructor?regrade=planned-{planned}#regrade", status_code=303)


@pages.get("/problems/{slug}")
async def problem_page(
    slug: str, request: Request, state: StateDep, catalog: CatalogDep, instructor: InstructorDep
) -> Response:
    entry = catalog.entry(slug)
    numbers = await in_session(state, lambda session: stats.problem_stats(session=session, problem=entry.slug))
    titles = {check.id: check.title for check in entry.problem.checks}
    return _page(request, "instructor/problem.html", instructor, {
        "problem": entry.public(), "stats": numbers.model_dump(mode="json"), "titles": titles,
    })


@pages.get("/learners")
async def learners_page(request: Request, state: StateDep, instructor: InstructorDep) -> Response:
    rows = await in_session(state, lambda session: stats.learner_rows(session=session))
    return _page(request, "instructor/learners.html", instructor,
                 {"learners": [row.model_dump(mode="json") for row in rows]})


@pages.get("/learners/{learner_id}")
async def learner_page(
    learner_id: str, request: Request, state: StateDep, catalog: CatalogDep, instructor: InstructorDep
) -> Response:
    context = await in_session(state, lambda session: learner_attempts(session=session, learner_id=learner_id))
    if context is None:
        raise NotFound(f"There is no learner '{learner_id}' with graded attempts.")
    titles = {slug: entry.public()["title"] for slug, entry in catalog.entries.items()}
    return _page(request, "instructor/learner.html", instructor, {**context, "titles": titles})


@pages.get("/submissions/{submission_id}")
async def submission_page(
    submission_id: str, request: Request, state: StateDep, catalog: CatalogDep, instructor: InstructorDep
) -> Response:
    """The page the learner sees for this attempt (code and report), whoever's it is."""
    context = await in_session(
        state, lambda session: submission_context(session=session, submission_id=submission_id, catalog=catalog)
    )
    return render(request, "submission.html", context)


# --- API ------------------------------------------------------------------------------------------------------


@api.get("/problems", response_model=list[stats.ProblemOverview])
async def api_problems(state: StateDep, catalog: CatalogDep) -> list[stats.ProblemOverview]:
    return await in_session(
        state, lambda session: stats.problem_overviews(session=session, problems=list(catalog.entries))
    )


@pages.get("/reports")
async def reports_page(request: Request, state: StateDep, instructor: InstructorDep) -> Response:
    rows = await in_session(state, lambda session: check_reports.inbox(session=session))
    return _page(request, "instructor/reports.html", instructor, {"reports": rows})


@pages.post("/reports/{report_id}/resolve")
async def resolve_report(report_id: str, request: Request, state: StateDep, instructor: InstructorDep) -> Response:
    form = await auth.read_form(request)
    auth.check_csrf(form, instructor)
    reply = form.get("reply", "")
    await in_session(state, lambda session: check_reports.resolve(session=session, report_id=report_id, reply=reply))
    return RedirectResponse("/instructor/reports", status_code=303)


@api.get("/reports")
async def api_reports(state: StateDep, status: str = "open") -> list[dict[str, Any]]:
    """Learners' reports of checks (`status`: open or resolved), each with its check's failure rate."""
    return await in_session(state, lambda session: check_reports.inbox(session=session, status_filter=status))


@api.get("/export.csv", response_class=StreamingResponse)
async def export_csv(state: StateDep, catalog: CatalogDep, problem: str | None = None) -> StreamingResponse:
    """One row per learner and problem (UTF-8 with a byte order mark, header row, ISO 8601 times)."""
    slug = catalog.entry(problem).slug if problem else None
    rows = export.export_rows(state.session_factory, problem=slug)
    name = f"paperlab-{slug or 'all'}.csv"
    return StreamingResponse(export.as_csv(rows), media_type="text/csv; charset=utf-8",
                             headers={"Content-Disposition": f'attachment; filename="{name}"'})


@api.get("/export.json", response_class=StreamingResponse)
async def export_json(state: StateDep, catalog: CatalogDep, problem: str | None = None) -> StreamingResponse:
    """The same rows as export.csv, as a JSON array of objects."""
    slug = catalog.entry(problem).slug if problem else None
    rows = export.export_rows(state.session_factory, problem=slug)
    return StreamingResponse(export.as_json(rows), media_type="application/json")


@api.get("/regrades", response_model=RegradeProgress)
async def api_regrades(state: StateDep) -> RegradeProgress:
    """How far the regrading is: attempts pending, queued for grading, and done."""
    return await in_session(state, lambda session: progress(session=session))


@api.get("/problems/{slug}/stats", response_model=stats.ProblemStats)
async def api_problem_stats(slug: str, state: StateDep, catalog: CatalogDep) -> stats.ProblemStats:
    """Per problem: learners who tried and solved, attempts, medians, per-check failure shares (worst first),
    the first failing check's distribution and the known mistakes diagnosed."""
    entry = catalog.entry(slug)
    return await in_session(state, lambda session: stats.problem_stats(session=session, problem=entry.slug))


@api.get("/learners", response_model=list[stats.LearnerRow])
async def api_learners(state: StateDep) -> list[stats.LearnerRow]:
    return await in_session(state, lambda session: stats.learner_rows(session=session))
