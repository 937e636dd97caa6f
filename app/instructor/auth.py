"""Signing instructors in and keeping everyone else out.

- A session is a random token in an HttpOnly, SameSite=Strict cookie (Secure when PAPERLAB_COOKIE_SECURE is
  set or the request came over HTTPS); the database keeps only its SHA-256 and an expiry.
- Every form carries a CSRF token (field `csrf_token`): the session's own once signed in; on the sign-in form,
  an HMAC of a random nonce kept in a cookie of its own (no session exists yet to hold one).
- Sign-in attempts are limited per account and per network address: in Redis when the site grades on Celery
  (every web process counts the same attempts), else in this process's memory.
- `require_instructor` guards every route under /instructor and /api/instructor: signed out it answers 401
  (pages redirect to the sign-in form), and to a learner's browser 403."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass, field
from datetime import timedelta
from http.cookies import SimpleCookie
from typing import Annotated
from urllib.parse import parse_qs

from fastapi import Depends, Request
from sqlalchemy import delete
from sqlalchemy.orm import Session

from app.deps import in_session, known_learner
from app.errors import AppError, Forbidden, TooManyRequests
from app.identity import resolve_secret_key
from app.instructor.models import Instructor, InstructorSession
from app.instructor.regrade import RegradeFeeder
from app.models import utcnow
from app.ratelimit import RateLimit
from app.state import AppState

SESSION_COOKIE = "paperlab_instructor"
LOGIN_NONCE_COOKIE = "paperlab_login_nonce"
CSRF_FIELD = "csrf_token"
SESSION_TTL = timedelta(hours=12)  # a working day; signing in again costs one form
LOGIN_WINDOW_S = 15 * 60
LOGIN_ATTEMPTS_PER_ACCOUNT = 5  # a guesser gets 20 tries an hour at one account
LOGIN_ATTEMPTS_PER_ADDRESS = 30  # a lab behind one NAT signs in together; a spray across accounts does not
MAX_FORM_BYTES = 16_384


class SignInRequired(AppError):
    """No instructor is signed in: 401 for the API; pages redirect to the sign-in form (app.instructor.routes)."""

    status_code = 401
    title = "Sign in required"


class InstructorsOnly(Forbidden):
    """A learner's browser (a learner cookie, no instructor session) asked for an instructor's page: 403, and
    the page links to the sign-in form (an instructor who also tried the problems has a learner cookie too)."""

    title = "For instructors"


class CsrfRejected(Forbidden):
    """A form without this session's CSRF token."""


@dataclass(frozen=True)
class SignedIn:
    instructor_id: str
    email: str
    csrf_token: str


@dataclass(frozen=True)
class SignInLimits:
    per_account: RateLimit
    per_address: RateLimit


@dataclass
class InstructorState:
    """What the instructor side keeps in memory, on `app.state.instructor`."""

    feeder: RegradeFeeder | None = None  # started by the regrade button
    _secret: bytes | None = None
    _sign_in_limits: SignInLimits | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def sign_in_limits(self, state: AppState) -> SignInLimits:
        """Built on first use from the app's state: in Redis when the site grades on Celery, so that spreading
        attempts over several web processes gains a guesser nothing."""
        with self._lock:
            if self._sign_in_limits is None:
                self._sign_in_limits = SignInLimits(
                    per_account=state.rate_limit("sign-in-per-account", limit=LOGIN_ATTEMPTS_PER_ACCOUNT,
                                                 window_s=LOGIN_WINDOW_S),
                    per_address=state.rate_limit("sign-in-per-address", limit=LOGIN_ATTEMPTS_PER_ADDRESS,
                                                 window_s=LOGIN_WINDOW_S),
                )
            return self._sign_in_limits

    def secret(self, state: AppState) -> bytes:
        if self._secret is None:
            self._secret = resolve_secret_key(state.settings).encode()
        return self._secret


def instructor_state(request: Request) -> InstructorState:
    value: InstructorState = request.app.state.instructor
    return value


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --- sessions -------------------------------------------------------------------------------------------------


def start_session(*, session: Session, instructor: Instructor) -> str:
    """A new session for `instructor`; returns the token for the cookie."""
    token = secrets.token_urlsafe(32)
    session.add(
        InstructorSession(
            token_hash=_token_hash(token),
            instructor_id=instructor.id,
            csrf_token=secrets.token_urlsafe(32),
            expires_at=utcnow() + SESSION_TTL,
        )
    )
    session.commit()
    return token


def find_session(*, session: Session, token: str) -> SignedIn | None:
    row = session.get(InstructorSession, _token_hash(token))
    if row is None:
        return None
    if row.expires_at <= utcnow():
        session.delete(row)
        session.commit()
        return None
    instructor = session.get(Instructor, row.instructor_id)
    if instructor is None:
        return None
    return SignedIn(instructor_id=instructor.id, email=instructor.email, csrf_token=row.csrf_token)


def end_session(*, session: Session, token: str) -> None:
    session.execute(delete(InstructorSession).where(InstructorSession.token_hash == _token_hash(token)))
    session.commit()


def cookie_header(request: Request, name: str, value: str, *, max_age: int, path: str = "/") -> str:
    cookie: SimpleCookie = SimpleCookie()
    cookie[name] = value
    morsel = cookie[name]
    morsel["path"] = path
    morsel["max-age"] = max_age
    morsel["httponly"] = True
    morsel["samesite"] = "Strict"
    state: AppState = request.app.state.paperlab
    if state.settings.cookie_secure or request.url.scheme == "https":
        morsel["secure"] = True
    return morsel.OutputString()


# --- the guard ------------------------------------------------------------------------------------------------


async def require_instructor(request: Request) -> SignedIn:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        state: AppState = request.app.state.paperlab
        signed_in = await in_session(state, lambda session: find_session(session=session, token=token))
        if signed_in is not None:
            return signed_in
    if known_learner(request) is not None:
        raise InstructorsOnly("This part of PaperLab is for instructors. If you are one, sign in first.")
    raise SignInRequired("Sign in as an instructor at /instructor/login first.")


InstructorDep = Annotated[SignedIn, Depends(require_instructor)]


# --- forms and CSRF -------------------------------------------------------------------------------------------


async def read_form(request: Request) -> dict[str, str]:
    """An `application/x-www-form-urlencoded` body as {name: first value} (the app has no multipart parser,
    and instructor forms never upload files)."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise Forbidden(f"A form may be at most {MAX_FORM_BYTES:,} bytes.")
    fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {name: values[0] for name, values in fields.items()}


def check_csrf(form: dict[str, str], signed_in: SignedIn) -> None:
    if not hmac.compare_digest(form.get(CSRF_FIELD, ""), signed_in.csrf_token):
        raise CsrfRejected("This form has expired or did not come from this site; reload the page and try again.")


def login_csrf_token(secret: bytes, nonce: str) -> str:
    return hmac.new(secret, b"instructor-login:" + nonce.encode(), hashlib.sha256).hexdigest()


def check_login_csrf(form: dict[str, str], *, secret: bytes, nonce: str | None) -> None:
    if not nonce or not hmac.compare_digest(form.get(CSRF_FIELD, ""), login_csrf_token(secret, nonce)):
        raise CsrfRejected("This sign-in form has expired; reload the page and sign in again.")


def take_login_attempt(state: SignInLimits, *, email: str, address: str) -> None:
    """Count one attempt against the account and the address, or raise TooManyRequests (counting nothing)."""
    wait = state.per_address.take(address)
    if wait is not None:
        raise TooManyRequests(
            f"Too many sign-in attempts from your network address; try again in {wait} seconds.", retry_after=wait
        )
    wait = state.per_account.take(email.strip().lower())
    if wait is not None:
        state.per_address.give_back(address)
        raise TooManyRequests(
            f"Too many sign-in attempts for this account; try again in {wait} seconds.", retry_after=wait
        )


def forgive_login_attempt(state: SignInLimits, *, email: str, address: str) -> None:
    """A successful sign-in does not count against anyone."""
    state.per_address.give_back(address)
    state.per_account.give_back(email.strip().lower())
