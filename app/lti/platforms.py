"""Registering a platform (an LMS) with PaperLab: its issuer, the client id it gave PaperLab, its endpoints and
the deployments allowed to launch. Operators do this (`python -m app lti ...`), as they make instructor accounts."""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import BaseModel
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.errors import BadRequest, Conflict, NotFound
from app.lti.models import LtiDeployment, LtiPlatform


class PlatformIn(BaseModel):
    title: str
    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    deployments: list[str]
    auth_audience: str | None = None


def _url(value: str, what: str) -> str:
    parts = urlsplit(value.strip())
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise BadRequest(f"The {what} must be an http(s) URL, not '{value[:100]}'.")
    return value.strip()


def add_platform(*, session: Session, values: PlatformIn) -> LtiPlatform:
    if not values.deployments:
        raise BadRequest("Name at least one deployment id (the LMS shows it when PaperLab is deployed).")
    platform = LtiPlatform(title=values.title.strip() or values.issuer, issuer=values.issuer.strip(),
                           client_id=values.client_id.strip(),
                           auth_login_url=_url(values.auth_login_url, "authorization (OIDC) URL"),
                           auth_token_url=_url(values.auth_token_url, "access token URL"),
                           key_set_url=_url(values.key_set_url, "key set (JWKS) URL"),
                           auth_audience=values.auth_audience or None)
    if not platform.issuer or not platform.client_id:
        raise BadRequest("A platform needs its issuer and the client id it gave PaperLab.")
    session.add(platform)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise Conflict(f"{platform.issuer} with client id {platform.client_id} is registered already.") from None
    session.add_all(LtiDeployment(platform_id=platform.id, deployment_id=d.strip()) for d in values.deployments)
    session.commit()
    return platform


def add_deployment(*, session: Session, issuer: str, client_id: str, deployment_id: str) -> None:
    platform = _find(session, issuer, client_id)
    if session.get(LtiDeployment, (platform.id, deployment_id)) is None:
        session.add(LtiDeployment(platform_id=platform.id, deployment_id=deployment_id))
        session.commit()


def remove_platform(*, session: Session, issuer: str, client_id: str) -> None:
    platform = _find(session, issuer, client_id)
    session.execute(delete(LtiPlatform).where(LtiPlatform.id == platform.id))
    session.commit()


def list_platforms(*, session: Session) -> list[tuple[LtiPlatform, list[str]]]:
    platforms = session.scalars(select(LtiPlatform).order_by(LtiPlatform.title)).all()
    deployments: dict[str, list[str]] = {p.id: [] for p in platforms}
    for row in session.scalars(select(LtiDeployment)):
        deployments.setdefault(row.platform_id, []).append(row.deployment_id)
    return [(p, sorted(deployments[p.id])) for p in platforms]


def _find(session: Session, issuer: str, client_id: str) -> LtiPlatform:
    platform = session.scalars(select(LtiPlatform).where(LtiPlatform.issuer == issuer,
                                                         LtiPlatform.client_id == client_id)).first()
    if platform is None:
        raise NotFound(f"No platform {issuer} with client id {client_id} is registered.")
    return platform
