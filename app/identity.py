"""Anonymous learners. A learner is a random id in a signed, HttpOnly, SameSite=Lax cookie; the id is
minted the first time a request needs it (see `app.deps.current_learner`) and the cookie
is set on that response."""

from __future__ import annotations

import functools
import logging
import os
import secrets
from dataclasses import dataclass
from http.cookies import SimpleCookie

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.datastructures import MutableHeaders
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.settings import Settings

logger = logging.getLogger(__name__)

COOKIE_NAME = "paperlab_learner"
COOKIE_MAX_AGE_S = 400 * 24 * 3600  # the longest lifetime browsers accept (RFC 6265bis caps at 400 days)
STATE_KEY = "paperlab_learner"
VERIFIED_COOKIES_KEPT = 4096
KEPT_COOKIE_CHARS = 128  # a signed id is under 50: longer ones are forged, verified each time


def resolve_secret_key(settings: Settings) -> str:
    """PAPERLAB_SECRET_KEY, else the key in var/secret_key, generated (mode 600) the first time."""
    if settings.secret_key is not None:
        return settings.secret_key.get_secret_value()
    path = settings.secret_key_file
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_text().strip()
        if len(key) < 32:
            raise RuntimeError(
                f"{path} holds no usable secret key; delete it to generate a new one"
            ) from None
        return key
    key = secrets.token_urlsafe(48)
    with os.fdopen(descriptor, "w") as file:
        file.write(key + "\n")
    logger.info("generated a new secret key in %s", path)
    return key


class LearnerSigner:
    def __init__(self, secret_key: str) -> None:
        self._serializer = URLSafeSerializer(secret_key, salt="paperlab.learner")
        # Every request of a learner carries the same cookie: its verification (an HMAC and a decoding, 7% of a
        # problem page's CPU, on the event loop) is kept for the learners seen lately. A cookie has one answer
        # under this key, so a kept answer is the one verifying again would give. The bounds keep a flood of
        # forged cookies from taking more than a few hundred kilobytes.
        self._kept = functools.lru_cache(maxsize=VERIFIED_COOKIES_KEPT)(self._verify)

    def sign(self, learner_id: str) -> str:
        return self._serializer.dumps(learner_id)

    def verify(self, cookie: str) -> str | None:
        return self._kept(cookie) if len(cookie) <= KEPT_COOKIE_CHARS else self._verify(cookie)

    def _verify(self, cookie: str) -> str | None:
        try:
            value = self._serializer.loads(cookie)
        except BadSignature:
            return None
        return value if isinstance(value, str) and 0 < len(value) <= 36 else None


@dataclass
class LearnerCookie:
    """Per-request identity: the verified id from the cookie, or one minted for this response."""

    learner_id: str | None
    minted: bool = False


class LearnerCookieMiddleware:
    """Reads the learner cookie into the request state, and sets it on the response when an id was minted."""

    def __init__(self, app: ASGIApp, *, secure: bool) -> None:
        self.app = app
        self.secure = secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        identity = LearnerCookie(learner_id=self._read(scope))
        scope.setdefault("state", {})[STATE_KEY] = identity

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and identity.minted and identity.learner_id:
                headers = MutableHeaders(scope=message)
                headers.append("Set-Cookie", self._cookie(scope, identity.learner_id))
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    def _signer(self, scope: Scope) -> LearnerSigner:
        signer: LearnerSigner = scope["app"].state.paperlab.signer
        return signer

    def _read(self, scope: Scope) -> str | None:
        for name, value in scope["headers"]:
            if name == b"cookie":
                signed = cookie_parser(value.decode("latin-1")).get(COOKIE_NAME)
                if signed:
                    return self._signer(scope).verify(signed)
        return None

    def _cookie(self, scope: Scope, learner_id: str) -> str:
        cookie: SimpleCookie = SimpleCookie()
        cookie[COOKIE_NAME] = self._signer(scope).sign(learner_id)
        morsel = cookie[COOKIE_NAME]
        morsel["path"] = "/"
        morsel["max-age"] = COOKIE_MAX_AGE_S
        morsel["httponly"] = True
        morsel["samesite"] = "Lax"
        if self.secure or scope.get("scheme") == "https":
            morsel["secure"] = True
        return morsel.OutputString()
