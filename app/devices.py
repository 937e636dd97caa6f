"""Continue on another device: a learner creates a link; the browser that opens it and confirms becomes the
same learner (the learner cookie is set to their id). The link holds a signed, timestamped id of a stored
row, which makes it single-use (used_at), revocable (revoked_at) and expiring (expires_at, and the signature's
own age); it never carries the learner's id or cookie.

Opening a link is a GET that only shows a confirmation; the switch is the POST that follows, so a chat app's
link preview cannot use up the link."""

from __future__ import annotations

from datetime import datetime, timedelta

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from pydantic import BaseModel
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app import crud
from app.errors import AppError, NotFound
from app.models import DeviceLink, utcnow

# Long enough to pick up a phone and open the link; short enough that a link left in a chat goes stale.
LINK_TTL = timedelta(minutes=30)
MAX_ACTIVE_LINKS = 5  # per learner, so that nobody fills the table by pressing the button


class LinkGone(AppError):
    status_code = 410
    title = "This link cannot be used"


class TooManyLinks(AppError):
    status_code = 429
    title = "Too many links"


class DeviceLinkOut(BaseModel):
    id: str
    url: str
    created_at: datetime
    expires_at: datetime


class DeviceLinks:
    def __init__(self, secret_key: str) -> None:
        self._serializer = URLSafeTimedSerializer(secret_key, salt="paperlab.device-link")

    def token(self, link_id: str) -> str:
        return self._serializer.dumps(link_id)

    def link_id(self, token: str) -> str:
        try:
            value = self._serializer.loads(token, max_age=int(LINK_TTL.total_seconds()))
        except SignatureExpired:
            raise LinkGone("This link has expired; create a new one on the device you came from.") from None
        except BadSignature:
            raise NotFound("This is not a PaperLab link; check that it was copied whole.") from None
        if not isinstance(value, str):
            raise NotFound("This is not a PaperLab link; check that it was copied whole.")
        return value


def create_link(*, session: Session, links: DeviceLinks, learner_id: str, base_url: str) -> DeviceLinkOut:
    active = active_links(session=session, links=links, learner_id=learner_id, base_url=base_url)
    if len(active) >= MAX_ACTIVE_LINKS:
        raise TooManyLinks(f"You already have {MAX_ACTIVE_LINKS} unused links; revoke one or wait for it to expire.")
    crud.ensure_learner(session=session, learner_id=learner_id)
    now = utcnow()
    link = DeviceLink(learner_id=learner_id, created_at=now, expires_at=now + LINK_TTL)
    session.add(link)
    session.commit()
    return _out(link, links, base_url)


def active_links(*, session: Session, links: DeviceLinks, learner_id: str, base_url: str) -> list[DeviceLinkOut]:
    now = utcnow()
    rows = session.scalars(
        select(DeviceLink)
        .where(DeviceLink.learner_id == learner_id, DeviceLink.used_at.is_(None), DeviceLink.revoked_at.is_(None))
        .order_by(DeviceLink.created_at.desc())
    )
    return [_out(row, links, base_url) for row in rows if row.expires_at > now]


def revoke_link(*, session: Session, learner_id: str, link_id: str) -> None:
    link = session.get(DeviceLink, link_id)
    if link is None or link.learner_id != learner_id:
        raise NotFound(f"There is no link '{link_id}' of yours.")
    if link.revoked_at is None and link.used_at is None:
        link.revoked_at = utcnow()
        session.commit()


def usable_link(*, session: Session, links: DeviceLinks, token: str) -> DeviceLink:
    """The link a token names, if it can still be used; LinkGone or NotFound says why not."""
    link = session.get(DeviceLink, links.link_id(token))
    if link is None:
        raise NotFound("This link does not exist (any more); create a new one on the device you came from.")
    if link.used_at is not None:
        raise LinkGone("This link has been used already; each link works once. Create a new one.")
    if link.revoked_at is not None:
        raise LinkGone("This link was revoked on the device that made it.")
    if link.expires_at <= utcnow():
        raise LinkGone("This link has expired; create a new one on the device you came from.")
    return link


def use_link(*, session: Session, links: DeviceLinks, token: str) -> str:
    """Marks the link used and returns the learner id this browser becomes. One UPDATE that only an unused,
    unrevoked link matches: of two browsers confirming at once, exactly one wins."""
    link = usable_link(session=session, links=links, token=token)
    taken = session.execute(
        update(DeviceLink)
        .where(DeviceLink.id == link.id, DeviceLink.used_at.is_(None), DeviceLink.revoked_at.is_(None))
        .values(used_at=utcnow())
    )
    session.commit()
    if getattr(taken, "rowcount", 0) != 1:
        raise LinkGone("This link has been used already; each link works once. Create a new one.")
    return link.learner_id


def _out(link: DeviceLink, links: DeviceLinks, base_url: str) -> DeviceLinkOut:
    return DeviceLinkOut(
        id=link.id,
        url=f"{base_url.rstrip('/')}/continue/{links.token(link.id)}",
        created_at=link.created_at,
        expires_at=link.expires_at,
    )
