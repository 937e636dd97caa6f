"""HTTP-level protections, as pure ASGI middleware so they cover every route, error page and static file:
security headers (CSP and friends), refusing cross-site writes, and capping request bodies before they are
read into memory."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import PayloadTooLarge
from app.token_auth import bearer_token

# KaTeX sets inline `style` attributes on the math it renders, hence 'unsafe-inline' in style-src only;
# scripts stay 'self' (pages carry no inline script, see docs/web-contract.md).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = CONTENT_SECURITY_POLICY

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", policy)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "same-origin")
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
            await send(message)

        await self.app(scope, receive, send_with_headers)


def cross_site_reason(method: str, headers: Headers) -> str | None:
    """Why a state-changing request comes from another site, or None. A request with neither `Origin` nor
    `Sec-Fetch-Site` (a script with its own cookie, curl) is not cross-site: browsers send at least one. A request
    that carries an API token (`Authorization: Bearer`) is no forgery either: a browser never adds that header on
    its own, and app.token_auth ignores the request's cookies, acting only as the token's learner (and refusing
    it when the token is not valid)."""
    if method in SAFE_METHODS or bearer_token(headers) is not None:
        return None
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return f"Sec-Fetch-Site is '{fetch_site}'"
    origin = headers.get("origin")
    if origin is not None:
        host = headers.get("host", "")
        origin_host = urlsplit(origin).netloc if origin != "null" else "null"
        if origin_host.lower() != host.lower():
            return f"Origin '{origin}' is not this site ({host})"
    return None


class CrossSiteWriteMiddleware:
    """403 for POST/PUT/PATCH/DELETE that a browser sent from another site (CSRF), before any route runs. The
    `exempt` paths are the few a third party posts to by design (LTI's login and launch, which authenticate the
    post itself with a signed token, a state and its cookie)."""

    def __init__(self, app: ASGIApp, exempt: tuple[str, ...] = ()) -> None:
        self.app = app
        self.exempt = frozenset(exempt)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in self.exempt:
            reason = cross_site_reason(scope["method"], Headers(scope=scope))
            if reason is not None:
                await _send_json(send, 403, f"Cross-site request refused: {reason}.")
                return
        await self.app(scope, receive, send)


class BodySizeLimitMiddleware:
    """Refuse request bodies over `max_bytes` without buffering them: by Content-Length when given, else by
    counting as the body streams in (raising PayloadTooLarge, which the error handlers turn into a 413)."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, message: str) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.message = message

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _send_json(send, 413, self.message)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise PayloadTooLarge(self.message)
            return message

        await self.app(scope, counting_receive, send)


async def _send_json(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
