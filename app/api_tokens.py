"""Personal API tokens: a learner makes one on their page (signed in or anonymous: the token belongs to the
learner the cookie names) and gives it to the `paperlab` command or a notebook, which then act as that learner
through the JSON API (app.token_auth). A token is shown once, when it is made; the database keeps its SHA-256,
its first characters (to tell tokens apart in the list), a name, when it expires and when it was last used.

A token is 32 random bytes, so a plain SHA-256 is enough to make a copy of the database useless for signing in
(a slow password hash guards against guessing low-entropy secrets, which these are not), and a lookup by hash
costs one indexed read per request."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field, field_validator
from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.orm import Session

from app import crud
from app.errors import AppError, NotFound, TooManyRequests
from app.models import ApiToken, utcnow

TOKEN_PREFIX = "plt_"  # recognisable in a config file or a leaked paste, and by secret scanners
TOKEN_BYTES = 32
TOKEN_LENGTH = len(TOKEN_PREFIX) + 43  # token_urlsafe(32) is 43 characters
SHOWN_PREFIX_LENGTH = len(TOKEN_PREFIX) + 6
MAX_ACTIVE_TOKENS = 10  # per learner: a laptop, a lab machine, a notebook or two; no one needs a table of them
LifetimeDays = Literal[7, 30, 90, 365]
DEFAULT_LIFETIME_DAYS: LifetimeDays = 90
# Recording every use would write a row per API call; once a minute is enough to say "last used".
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenRejected(AppError):
    """A request's token cannot be used: malformed, unknown, revoked or expired (the detail says which)."""

    status_code = 401
    title = "API token refused"


class ApiTokenCreate(BaseModel):
    name: str = Field(default="", max_length=60, description="Your label for it, e.g. \"laptop\" or \"Colab\".")
    expires_in_days: LifetimeDays = Field(default=DEFAULT_LIFETIME_DAYS, description="How long it works.")

    @field_validator("name")
    @classmethod
    def _stripped(cls, value: str) -> str:
        return " ".join(value.split())


class ApiTokenOut(BaseModel):
    id: str
    name: str
    prefix: str = Field(description="The token's first characters; the token itself is never shown again.")
    created_at: datetime
    expires_at: datetime
    last_used_at: datetime | None


class ApiTokenCreated(ApiTokenOut):
    token: str = Field(description="The token. Shown this once: only its hash is stored.")


class TokenHolder(BaseModel):
    """Who a request with a valid token acts as (kept on the request's state by app.token_auth)."""

    token_id: str
    learner_id: str


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def looks_like_token(token: str) -> bool:
    return token.startswith(TOKEN_PREFIX) and len(token) == TOKEN_LENGTH and token.isascii()


def create_token(*, session: Session, learner_id: str, request: ApiTokenCreate) -> ApiTokenCreated:
    if count_active(session=session, learner_id=learner_id) >= MAX_ACTIVE_TOKENS:
        raise TooManyRequests(
            f"You already have {MAX_ACTIVE_TOKENS} API tokens; revoke one you no longer use, then make a new one."
        )
    crud.ensure_learner(session=session, learner_id=learner_id)
    token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    now = utcnow()
    row = ApiToken(
        learner_id=learner_id,
        name=request.name or "API token",
        prefix=token[:SHOWN_PREFIX_LENGTH],
        token_hash=hash_token(token),
        created_at=now,
        expires_at=now + timedelta(days=request.expires_in_days),
    )
    session.add(row)
    session.commit()
    return ApiTokenCreated(**token_out(row).model_dump(), token=token)


def count_active(*, session: Session, learner_id: str) -> int:
    return session.scalar(select(func.count()).select_from(ApiToken).where(*_active(learner_id))) or 0


def active_tokens(*, session: Session, learner_id: str) -> list[ApiTokenOut]:
    """This learner's tokens that still work, newest first."""
    rows = session.scalars(select(ApiToken).where(*_active(learner_id)).order_by(ApiToken.created_at.desc()))
    return [token_out(row) for row in rows]


def revoke_token(*, session: Session, learner_id: str, token_id: str) -> None:
    """Idempotent for the owner; someone else's token, or no token, is NotFound (which of the two is not said)."""
    row = session.get(ApiToken, token_id)
    if row is None or row.learner_id != learner_id:
        raise NotFound(f"There is no API token '{token_id}' of yours.")
    if row.revoked_at is None:
        row.revoked_at = utcnow()
        session.commit()


def read_token(*, session: Session, learner_id: str, token_id: str) -> ApiTokenOut:
    row = session.get(ApiToken, token_id)
    if row is None or row.learner_id != learner_id:
        raise NotFound(f"There is no API token '{token_id}' of yours.")
    return token_out(row)


def authenticate(*, session: Session, token: str, site: str) -> TokenHolder:
    """The learner a presented token acts as, or TokenRejected saying what to do about it. `site` is where a new
    token is made (named in the messages)."""
    remedy = f"Make a new one at {site} and run `paperlab login` again."
    if not looks_like_token(token):
        raise TokenRejected(f"This is not a PaperLab API token (they start with '{TOKEN_PREFIX}'). {remedy}")
    row = session.scalars(select(ApiToken).where(ApiToken.token_hash == hash_token(token))).first()
    if row is None:
        raise TokenRejected(f"This API token is not known to this PaperLab site. {remedy}")
    now = utcnow()
    if row.revoked_at is not None:
        raise TokenRejected(f"This API token ('{row.name}') was revoked on {_day(row.revoked_at)}. {remedy}")
    if row.expires_at <= now:
        raise TokenRejected(f"This API token ('{row.name}') expired on {_day(row.expires_at)}. {remedy}")
    if row.last_used_at is None or now - row.last_used_at >= LAST_USED_RESOLUTION:
        session.execute(update(ApiToken).where(ApiToken.id == row.id).values(last_used_at=now))
        session.commit()
    return TokenHolder(token_id=row.id, learner_id=row.learner_id)


def token_out(row: ApiToken) -> ApiTokenOut:
    return ApiTokenOut(id=row.id, name=row.name, prefix=row.prefix, created_at=row.created_at,
                       expires_at=row.expires_at, last_used_at=row.last_used_at)  # fmt: skip


def _active(learner_id: str) -> tuple[ColumnElement[bool], ...]:
    return (ApiToken.learner_id == learner_id, ApiToken.revoked_at.is_(None), ApiToken.expires_at > utcnow())


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")
