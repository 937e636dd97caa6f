"""Requests that carry `Authorization: Bearer <API token>` (the `paperlab` command, the notebook extension).

Such a request is that token's learner and nobody else: its cookies are dropped before any route sees them, and
the learner identity the routes read (`app.deps.learner_for`, `known_learner`) is the token's, exactly as a
cookie would set it, so every rule the page meets (ownership, rate limits per learner and per address, one run
in flight, open streams) applies unchanged. No cookie is ever set on such a response.

A token opens the solving API only (ROUTES below): never an instructor route, and never the routes that make
tokens or device links, so a leaked token cannot be turned into a browser session or into more tokens; it can
revoke itself (`DELETE /api/tokens/current`, `paperlab logout`). Failed tokens are counted per network address,
and an address that keeps presenting bad ones is refused for a while before any database lookup.

Nothing here logs a token: a refusal says why in its body, never which token it was."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.addresses import address_key
from app.api_tokens import TokenHolder, TokenRejected, authenticate
from app.identity import STATE_KEY, LearnerCookie
from app.state import AppState

TOKEN_STATE_KEY = "paperlab_api_token"
INSTRUCTOR_PREFIXES = ("/instructor", "/api/instructor")

_SLUG = r"[^/]+"


@dataclass(frozen=True)
class Route:
    methods: frozenset[str]
    pattern: re.Pattern[str]


def _route(methods: str, path: str) -> Route:
    return Route(frozenset(methods.split()), re.compile(f"^{path}$"))


# What a token may do: solve. Anything not listed (instructor routes, pages, making tokens or device links, and
# any route added later until it is listed here) answers 403 to a token.
ROUTES: tuple[Route, ...] = (
    _route("GET HEAD", "/api/catalogue"),
    _route("GET HEAD", "/api/problems"),
    _route("GET HEAD", f"/api/problems/{_SLUG}"),
    _route("GET HEAD POST", f"/api/problems/{_SLUG}/submissions"),
    _route("POST", f"/api/problems/{_SLUG}/runs"),
    _route("GET HEAD", f"/api/problems/{_SLUG}/hints"),
    _route("POST", f"/api/problems/{_SLUG}/hints/[0-9]+/unlock"),
    _route("GET HEAD", f"/api/problems/{_SLUG}/solution"),
    _route("POST", f"/api/problems/{_SLUG}/solution/reveal"),
    _route("GET HEAD", f"/api/submissions/{_SLUG}"),
    _route("GET HEAD", f"/api/submissions/{_SLUG}/events"),
    _route("GET HEAD", f"/api/submissions/{_SLUG}/embed"),
    _route("POST", f"/api/submissions/{_SLUG}/stop"),
    _route("GET HEAD DELETE", "/api/tokens/current"),
)


def bearer_token(headers: Headers) -> str | None:
    """The credentials of an `Authorization: Bearer ...` header (an empty string when it names none), or None
    when the request has no such header."""
    scheme, _, credentials = headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return credentials.strip()


def refusal(method: str, path: str) -> str | None:
    """Why a token may not make this request, or None when it may."""
    if path.startswith(INSTRUCTOR_PREFIXES):
        return "API tokens cannot open instructor routes; instructors sign in at /instructor/login in a browser."
    if any(method in route.methods and route.pattern.match(path) for route in ROUTES):
        return None
    return (f"An API token can use only the solving API (problems, submissions, their events, Try it, hints); "
            f"{method} {path} is for the browser the token was made in.")  # fmt: skip


class ApiTokenMiddleware:
    """Inside LearnerCookieMiddleware: replaces the cookie's identity with the token's."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        token = bearer_token(headers)
        if token is None:
            await self.app(scope, receive, send)
            return
        reason = refusal(scope["method"], scope["path"])
        if reason is not None:
            await _send_json(send, 403, reason)
            return
        state: AppState = scope["app"].state.paperlab
        address = address_key(scope["client"][0] if scope.get("client") else None)
        wait = state.token_failures.take(address)
        if wait is not None:
            await _send_json(
                send, 429, f"Too many refused API tokens from your network address; try again in {wait} seconds.",
                headers={"Retry-After": str(wait)},
            )
            return
        site = f"{scope.get('scheme', 'http')}://{headers.get('host', 'this site')}/continue"
        try:
            holder = await run_in_threadpool(_authenticate, state, token, site)
        except TokenRejected as exc:
            await _send_json(send, 401, exc.detail, headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
            return
        state.token_failures.give_back(address)  # only refusals count
        scope["headers"] = [(name, value) for name, value in scope["headers"] if name != b"cookie"]
        scope.setdefault("state", {})[STATE_KEY] = LearnerCookie(learner_id=holder.learner_id)
        scope["state"][TOKEN_STATE_KEY] = holder
        await self.app(scope, receive, send)


def _authenticate(state: AppState, token: str, site: str) -> TokenHolder:
    with state.session_factory() as session:
        return authenticate(session=session, token=token, site=site)


def token_holder(scope_state: dict[str, object]) -> TokenHolder | None:
    """The token a request was made with (from `request.scope["state"]`), or None for a browser's request."""
    holder = scope_state.get(TOKEN_STATE_KEY)
    return holder if isinstance(holder, TokenHolder) else None


async def _send_json(send: Send, status: int, detail: str, *, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    raw_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw_headers += [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})
