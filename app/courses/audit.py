"""The course's audit log: every change an instructor (or a platform, through LTI) makes to who is in a course,
its assignments, extensions and grades, with who did it, when and why. Entries are only ever added."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.courses.models import AuditEntry
from app.models import utcnow


class AuditOut(BaseModel):
    at: datetime
    actor: str
    action: str
    summary: str
    detail: dict[str, Any]


def record(*, session: Session, course_id: str, actor: str, action: str, summary: str, **detail: Any) -> None:
    """Added to the caller's transaction: the entry and the change it describes are committed together."""
    session.add(AuditEntry(course_id=course_id, at=utcnow(), actor=actor, action=action, summary=summary,
                           detail=json.dumps(detail, default=str, ensure_ascii=False, sort_keys=True)))


def entries(*, session: Session, course_id: str, limit: int = 500) -> list[AuditOut]:
    """Newest first."""
    rows = session.scalars(select(AuditEntry).where(AuditEntry.course_id == course_id)
                           .order_by(AuditEntry.at.desc(), AuditEntry.id).limit(limit))
    return [AuditOut(at=row.at, actor=row.actor, action=row.action, summary=row.summary,
                     detail=json.loads(row.detail)) for row in rows]
