"""Jinja2 pages (templates/, see docs/web-contract.md). Autoescaping is on for every .html template, so
whatever a submission printed or raised is escaped wherever a page shows it."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import jinja2
import markupsafe
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.templating import Jinja2Templates

from app.markdown import inline_math, plain_text_of_math


def make_templates(directory: Path) -> Jinja2Templates:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory),
        autoescape=jinja2.select_autoescape(default=True),
        undefined=jinja2.StrictUndefined,
        # The templates are the app's code, changed by a deploy that restarts it. Checking each one's file for a
        # change, on every render, took 5% of a problem page's CPU (a stat of each of its three templates).
        auto_reload=False,
    )
    # A summary's $...$ as KaTeX spans (app.markdown.inline_math escapes the rest).
    environment.filters["inline_math"] = lambda text: markupsafe.Markup(inline_math(str(text)))
    environment.filters["plain_math"] = lambda text: plain_text_of_math(str(text))
    return Jinja2Templates(env=environment, context_processors=[_common_context])


def _common_context(request: Request) -> dict[str, Any]:
    state = request.app.state.paperlab
    author_mode = state.settings.author_mode
    author_notices = state.catalog.author_notices(request.url.path) if author_mode else []
    return {"unsafe_sandbox": state.unsafe_sandbox, "author_notices": author_notices, "author_mode": author_mode,
            "author_selftest_slug": _problem_of(request.url.path, state.catalog) if author_mode else None}


def _problem_of(path: str, catalog: Any) -> str | None:
    """The problem folder whose pages `path` is under (/problems/SLUG...), for the banner's self-test."""
    parts = path.strip("/").split("/")
    if len(parts) >= 2 and parts[0] == "problems" and (parts[1] in catalog.entries or parts[1] in catalog.invalid):
        return parts[1]
    return None


def render(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    status_code: int = 200,
    headers: dict[str, str] | None = None,
) -> Response:
    templates: Jinja2Templates = request.app.state.paperlab.templates
    return templates.TemplateResponse(request, name, context, status_code=status_code, headers=headers)


def render_error(
    request: Request, *, status_code: int, title: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    """error.html; a plain page if even that cannot be rendered (so an error never hides behind another)."""
    context = {"status_code": status_code, "title": title, "message": message}
    try:
        return render(request, "error.html", context, status_code=status_code, headers=headers)
    except jinja2.TemplateError:
        body = (
            f"<!doctype html><title>{html.escape(title)}</title><h1>{html.escape(title)}</h1>"
            f"<p>{html.escape(message)}</p>"
        )
        return HTMLResponse(body, status_code=status_code, headers=headers)


def render_fragment(request: Request, name: str, context: dict[str, Any]) -> str:
    """A template as a string of HTML, outside any page (no base layout, no page context): app.embed."""
    templates: Jinja2Templates = request.app.state.paperlab.templates
    return templates.env.get_template(name).render(**context)
