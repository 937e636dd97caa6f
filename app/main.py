"""The app factory. `uvicorn app.main:app` and `python -m app serve` both use the module-level `app`, which is
created on first access (not at import), and everything with side effects (database, secret key, sandboxes)
happens in the lifespan, not here."""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from app.courses import routes_learner as courses
from app.handlers import install_error_handlers
from app.identity import LearnerCookieMiddleware
from app.instructor import routes as instructor
from app.lti import routes as lti
from app.routes import (
    api,
    author,
    devices,
    docs,
    events,
    health,
    home,
    learning,
    metrics,
    my_reports,
    pages,
    tokens,
)
from app.security import BodySizeLimitMiddleware, CrossSiteWriteMiddleware, SecurityHeadersMiddleware
from app.settings import Settings
from app.state import BackendFactory, build_state
from app.token_auth import ApiTokenMiddleware
from grader import settle

logger = logging.getLogger(__name__)

# A JSON string may spell one byte of code as six (`\u0000`); anything larger cannot be code within the limit.
JSON_ESCAPE_FACTOR = 6
BODY_SLACK_BYTES = 4096


def create_app(settings: Settings | None = None, *, backend_factory: BackendFactory | None = None) -> FastAPI:
    """`backend_factory` replaces the grading backend (tests of the queue mechanics; the Celery backend is
    chosen by settings, not here)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state = build_state(settings, backend_factory)
        app.state.paperlab = state
        # In-process grading runs the judge's Python in threads beside the event loop; a shorter GIL switch
        # interval (default 5 ms) keeps page and API latency low while submissions are graded.
        sys.setswitchinterval(0.001)
        state.backend.start()
        state.passback.start()  # scores back to LMSs (app.lti.passback)
        if settings.problems_reload_s > 0:  # authors' edits are served within a few seconds, no restart
            state.catalog.start_watching(settings.problems_reload_s)
        if state.author_selftests is not None:
            state.author_selftests.start()
        # Everything loaded at start-up (torch, problems, templates) lives for the whole process: keep the
        # cyclic collector from walking it again and again while requests are served.
        settle()
        try:
            yield
        finally:
            state.catalog.stop_watching()
            if state.author_selftests is not None:
                state.author_selftests.stop()
            state.passback.stop()
            state.streams.close_all()  # under app.serving they are ended already, before uvicorn waits for them
            state.backend.stop()
            state.engine.dispose()

    app = FastAPI(
        title="PaperLab",
        summary="Implement the paper: write the functions, get a verdict per check, unlock the notes.",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,  # served by app.routes.docs from the bundled Swagger UI, not a CDN
        redoc_url=None,
    )
    install_error_handlers(app)
    app.include_router(home.router)
    app.include_router(pages.router)
    app.include_router(my_reports.router)
    app.include_router(docs.router)
    app.include_router(api.router)
    app.include_router(learning.router)
    app.include_router(learning.pages_router)
    app.include_router(devices.router)
    app.include_router(tokens.router)
    app.include_router(tokens.pages_router)  # before devices': /continue/tokens is not a link's /continue/{token}
    app.include_router(devices.pages_router)
    app.include_router(events.router)
    app.include_router(health.router)
    app.include_router(metrics.router)
    app.include_router(author.router)
    instructor.install(app)  # /instructor, /api/instructor and the learner's profile form
    courses.install(app)  # /courses, /join, /account; /instructor/courses and /api/instructor/courses
    lti.install(app)  # /lti: login, launch, JWKS, deep linking; the instructor's LTI actions on a course
    # Static assets only: the bundle in static/dist and whatever else lives in static/. Problem folders
    # (notes, references, checks) are outside it and reachable through no static route.
    app.mount("/static", StaticFiles(directory=settings.static_dir, check_dir=False), name="static")
    # Outermost last: headers on every response, then refuse cross-site writes, the learner (cookie, then API
    # token), then cap bodies.
    max_body = settings.max_code_bytes * JSON_ESCAPE_FACTOR + BODY_SLACK_BYTES
    app.add_middleware(
        BodySizeLimitMiddleware,
        max_bytes=max_body,
        message=f"The request body is over {max_body:,} bytes; "
        f"submissions may be at most {settings.max_code_bytes:,} bytes of code.",
    )
    app.add_middleware(ApiTokenMiddleware)  # inside the cookie's: a token's learner replaces the cookie's
    app.add_middleware(LearnerCookieMiddleware, secure=settings.cookie_secure)
    app.add_middleware(CrossSiteWriteMiddleware, exempt=lti.EXEMPT_FROM_CROSS_SITE_GUARD)
    app.add_middleware(SecurityHeadersMiddleware)
    return app


_app: FastAPI | None = None


def __getattr__(name: str) -> Any:
    """`app.main.app`, made on first use so that importing this module has no side effects."""
    global _app
    if name == "app":
        if _app is None:
            _app = create_app()
        return _app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
