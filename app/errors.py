"""The app's errors: a small tree, each with the HTTP status it answers with. Routes and services raise
these; `app.handlers` turns them into `{"detail": ...}` JSON for the API and `error.html` for pages."""

from __future__ import annotations


class AppError(Exception):
    status_code = 500
    title = "Something went wrong"

    def __init__(self, detail: str, *, retry_after: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)} if self.retry_after is not None else {}


class BadRequest(AppError):
    status_code = 400
    title = "Bad request"


class Forbidden(AppError):
    status_code = 403
    title = "Forbidden"


class NotFound(AppError):
    status_code = 404
    title = "Not found"


class PayloadTooLarge(AppError):
    status_code = 413
    title = "Too large"


class UnprocessableContent(AppError):
    status_code = 422
    title = "Invalid request"


class TooManyRequests(AppError):
    status_code = 429
    title = "Too many requests"


class ServiceUnavailable(AppError):
    status_code = 503
    title = "Temporarily unavailable"


class Conflict(AppError):
    status_code = 409
    title = "Conflict"
