"""The per-address cap on waiting submissions on the Celery path, where the broker's FIFO cannot be counted
per client: the web process remembers what it sent and asks the database what still waits."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import update

from app.db import SessionFactory, make_engine, make_session_factory, transaction
from app.grading.base import AddressQueueFull
from app.grading.waiting_by_address import WaitingByAddress
from app.migrate import upgrade
from app.models import Learner, Submission
from app.settings import Settings


@pytest.fixture
def session_factory(make_settings: Callable[..., Settings]) -> Iterator[SessionFactory]:
    engine = make_engine(make_settings().database_url)
    upgrade(engine)
    yield make_session_factory(engine)
    engine.dispose()


def store_queued(session_factory: SessionFactory, *ids: str) -> None:
    with transaction(session_factory) as session:
        for submission_id in ids:
            learner_id = f"learner-{submission_id}"
            session.add(Learner(id=learner_id))
            session.flush()
            session.add(Submission(id=submission_id, learner_id=learner_id, problem="p", code="", status="queued"))


def test_an_address_at_the_cap_is_refused_until_one_of_its_submissions_starts(
    session_factory: SessionFactory,
) -> None:
    waiting = WaitingByAddress(session_factory=session_factory, limit=2)
    store_queued(session_factory, "s1", "s2", "s3")
    waiting.admit("10.0.0.1", "s1")
    waiting.admit("10.0.0.1", "s2")
    with pytest.raises(AddressQueueFull, match="2 submissions from your network address are already waiting"):
        waiting.admit("10.0.0.1", "s3")
    waiting.admit("10.0.0.2", "s3")  # another address has its own share
    with transaction(session_factory) as session:
        session.execute(update(Submission).where(Submission.id == "s1").values(status="running"))
    waiting.admit("10.0.0.1", "s4")
