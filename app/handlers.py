"""Turn errors into responses: `{"detail": ...}` JSON under /api and /healthz, error.html everywhere else.
Anything unexpected still propagates to the server, which logs it with its traceback; the client gets a 500
in the same format."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.responses import Response

from app.errors import AppError
from app.templating import render_error

JSON_PREFIXES = ("/api/", "/healthz")
HTTP_TITLES = {400: "Bad request", 404: "Not found", 405: "Method not allowed", 413: "Too large"}


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AppError, _app_error)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    # Starlette calls this from its outermost middleware, then re-raises, so the server still logs the
    # traceback: the learner gets a page in our format, the operator gets the error.
    app.add_exception_handler(Exception, _unexpected_error)


def wants_json(request: Request) -> bool:
    return request.url.path.startswith(JSON_PREFIXES)


def error_response(
    request: Request,
    *,
    status_code: int,
    title: str,
    detail: str,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Response:
    if wants_json(request):
        return JSONResponse({"detail": detail, **(extra or {})}, status_code=status_code, headers=headers)
    return render_error(request, status_code=status_code, title=title, message=detail, headers=headers)


async def _app_error(request: Request, exc: AppError) -> Response:
    return error_response(
        request, status_code=exc.status_code, title=exc.title, detail=exc.detail, headers=exc.headers or None
    )


async def _http_error(request: Request, exc: HTTPException) -> Response:
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"There is nothing at {request.url.path}."
    title = HTTP_TITLES.get(exc.status_code, "Error")
    return error_response(
        request,
        status_code=exc.status_code,
        title=title,
        detail=detail,
        headers=dict(exc.headers or {}) or None,
    )


async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
    problems = [_describe(error) for error in exc.errors()]
    detail = "Invalid request: " + "; ".join(problems)
    if any(error.get("type") == "json_invalid" for error in exc.errors()):
        detail = 'The request body is not valid JSON; send {"code": "<your Python source>"}.'
    errors = [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
        for e in exc.errors()
    ]
    return error_response(
        request, status_code=422, title="Invalid request", detail=detail, extra={"errors": errors}
    )


async def _unexpected_error(request: Request, exc: Exception) -> Response:
    return error_response(
        request,
        status_code=500,
        title="Something went wrong",
        detail="The server hit an unexpected error; it has been logged. Please try again.",
    )


def _describe(error: Any) -> str:
    location = ".".join(str(part) for part in error.get("loc", ()) if part != "body") or "body"
    return f"{location}: {error.get('msg', 'invalid')}"
