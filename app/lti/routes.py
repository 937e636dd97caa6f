"""LTI 1.3 over HTTP: `/lti/login` (OIDC third-party login), `/lti/launch` (resource links and deep linking),
`/lti/jwks.json` (the tool's public keys), `/lti` (what to enter in an LMS), the deep-linking picker, and the
instructor's LTI actions on a course page (roster sync, binding a link, retrying failed scores).

The login and the launch come from the platform's pages, so they are the two paths the cross-site write guard
lets through (app.main): they are authenticated by the signed id_token, the state and its cookie instead. A
launch answers a small page that moves on by itself (a meta refresh): the instructor's session cookie is
SameSite=Strict, which a browser only sends on a navigation that starts on PaperLab's own page."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.courses.routes_instructor import read_checked_form, with_course
from app.deps import CatalogDep, StateDep, in_session
from app.errors import Forbidden
from app.identity import STATE_KEY, LearnerCookie
from app.instructor import auth
from app.instructor.auth import CSRF_FIELD, SESSION_COOKIE, SESSION_TTL, InstructorDep
from app.instructor.models import Instructor
from app.lti import deep_linking, keys, links, passback, roster_sync
from app.lti.admission import Admitted, admit
from app.lti.launch import start_login, validate_launch
from app.lti.runtime import LtiRuntime
from app.templating import render

EXEMPT_FROM_CROSS_SITE_GUARD = ("/lti/login", "/lti/launch")
MAX_LTI_FORM_BYTES = 64_000  # an id_token with a large roster claim is a few kB

public = APIRouter(prefix="/lti", include_in_schema=False)
guarded = [Depends(auth.require_instructor)]
pages = APIRouter(include_in_schema=False, default_response_class=HTMLResponse, dependencies=guarded)


def install(app: FastAPI) -> None:
    app.include_router(public)
    app.include_router(pages)


def runtime_of(request: Request) -> LtiRuntime:
    runtime: LtiRuntime = request.app.state.paperlab.lti
    return runtime


def _secure(request: Request) -> bool:
    state = request.app.state.paperlab
    return bool(state.settings.cookie_secure or request.url.scheme == "https")


def tool_urls(request: Request) -> dict[str, str]:
    base = str(request.base_url).rstrip("/")
    return {"login": f"{base}/lti/login", "launch": f"{base}/lti/launch", "jwks": f"{base}/lti/jwks.json",
            "deep_linking": f"{base}/lti/launch", "domain": urlsplit(base).netloc}


async def _params(request: Request) -> dict[str, str]:
    values = dict(request.query_params)
    if request.method == "POST":
        body = await request.body()
        if len(body) > MAX_LTI_FORM_BYTES:
            raise Forbidden(f"An LTI message may be at most {MAX_LTI_FORM_BYTES:,} bytes.")
        values.update({k: v[0] for k, v in parse_qs(body.decode("utf-8", errors="replace")).items()})
    return values


@public.api_route("/login", methods=["GET", "POST"])
async def login(request: Request) -> Response:
    """Step 1 of a launch: the platform sends the browser here; PaperLab sends it on to the platform's
    authorization endpoint with a state (and its cookie) and a nonce."""
    params = await _params(request)
    secure = _secure(request)
    redirect = await run_in_threadpool(start_login, runtime_of(request), params, secure=secure,
                                       launch_url=tool_urls(request)["launch"])
    response = RedirectResponse(redirect.url, status_code=302)
    for name, (value, max_age) in redirect.cookies.items():
        same_site = "None; Secure" if secure else "Lax"  # the launch comes back as a cross-site POST
        response.headers.append("Set-Cookie", f"{name}={value}; Max-Age={max_age or 300}; Path=/lti/; HttpOnly; "
                                              f"SameSite={same_site}")
    return response


@public.post("/launch")
async def launch(request: Request, catalog: CatalogDep) -> Response:
    """Step 2: the platform's form POST of the id_token. Validated (app.lti.launch), then admitted
    (app.lti.admission): the browser becomes the platform's learner, or signs in its instructor."""
    params = await _params(request)
    runtime = runtime_of(request)
    validated = await run_in_threadpool(validate_launch, runtime, params, dict(request.cookies),
                                        secure=_secure(request))
    known = set(catalog.entries)

    def work(session: Session) -> tuple[Admitted, str | None]:
        admitted = admit(session=session, launch=validated, known_problems=known)
        token = None
        if admitted.instructor_id is not None:
            instructor = session.get(Instructor, admitted.instructor_id)
            assert instructor is not None
            token = auth.start_session(session=session, instructor=instructor)
        return admitted, token

    admitted, token = await in_session(request.app.state.paperlab, work)
    response = render(request, "lti/continue.html", {"location": admitted.location})
    if admitted.learner_id is not None:
        identity: LearnerCookie = getattr(request.state, STATE_KEY)
        identity.learner_id, identity.minted = admitted.learner_id, True  # the middleware sets the cookie
    if token is not None:
        response.headers.append("Set-Cookie", auth.cookie_header(request, SESSION_COOKIE, token,
                                                                 max_age=int(SESSION_TTL.total_seconds())))
    state = params.get("state", "")
    response.headers.append("Set-Cookie", f"lti1p3-{state}=; Max-Age=0; Path=/lti/; HttpOnly; SameSite=Lax")
    return response


@public.get("/jwks.json")
async def jwks(request: Request, state: StateDep) -> JSONResponse:
    """The tool's public keys: the one that signs now, and those replaced lately (app.lti.keys)."""
    runtime = runtime_of(request)

    def load(session: Session) -> dict[str, Any]:
        keys.signing_key(session=session, secret_key=runtime.secret_key, policy=runtime.policy)  # rotates if due
        return keys.published_jwks(session=session)

    return JSONResponse(await in_session(state, load), headers={"Cache-Control": "public, max-age=300"})


@public.get("", response_class=HTMLResponse)
async def about(request: Request) -> Response:
    """What an LMS administrator enters to register PaperLab (docs/lti.md has the steps per LMS)."""
    return render(request, "lti/about.html", {"urls": tool_urls(request)})


# --- deep linking ---------------------------------------------------------------------------------------------


@pages.get("/lti/deep-link/{launch_id}")
async def picker(launch_id: str, request: Request, state: StateDep, catalog: CatalogDep,
                 instructor: InstructorDep) -> Response:
    found = await in_session(state, lambda s: deep_linking.request_of(session=s, launch_id=launch_id,
                                                                      instructor_id=instructor.instructor_id))
    titles = {slug: entry.public()["title"] for slug, entry in catalog.entries.items()}
    return render(request, "lti/deep_link.html", {"instructor": instructor, "csrf_field": CSRF_FIELD,
                                                  "request_": found, "titles": titles, "error": None})


@pages.post("/lti/deep-link/{launch_id}")
async def picked(launch_id: str, request: Request, state: StateDep, catalog: CatalogDep,
                 instructor: InstructorDep) -> Response:
    form = await read_checked_form(request, instructor)
    titles = {slug: entry.public()["title"] for slug, entry in catalog.entries.items()}
    runtime, launch_url = runtime_of(request), tool_urls(request)["launch"]
    reply = await in_session(state, lambda s: deep_linking.answer(
        runtime=runtime, session=s, launch_id=launch_id, instructor_id=instructor.instructor_id,
        picks=form.all("pick"), launch_url=launch_url, titles=titles))
    response = render(request, "lti/deep_link_return.html", {"reply": reply})
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(reply.return_url))
    # The answer is a form posted to the LMS: this one page may post there (the site's policy says 'self').
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        f"font-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action {origin}")
    return response


# --- the instructor's LTI actions on a course -----------------------------------------------------------------


@pages.post("/instructor/courses/{course_id}/lti")
async def course_action(course_id: str, request: Request, state: StateDep, catalog: CatalogDep,
                        instructor: InstructorDep) -> Response:
    """`action`: `sync` (the roster from the LMS), `bind` (what a hand-placed link opens), `retry` (failed
    scores)."""
    form = await read_checked_form(request, instructor)
    action, runtime, known = form.get("action"), runtime_of(request), set(catalog.entries)

    def work(session: Session, course: Any) -> str:
        if action == "sync":
            roster_sync.sync_roster(runtime=runtime, session=session, course=course, actor=instructor.email)
            return "synced"
        if action == "bind":
            links.bind_link(session=session, course=course, link_id=form.get("link_id"),
                            target=form.get("target"), known_problems=known, actor=instructor.email)
            return ""
        if action == "retry":
            passback.retry_failed(session=session, course_id=course.id)
            return ""
        raise Forbidden(f"Unknown LTI action '{action[:40]}'.")

    note = await with_course(state, instructor, course_id, work)
    return RedirectResponse(f"/instructor/courses/{course_id}{'?note=' + note if note else ''}#lti",
                            status_code=303)
