"""The per-address cap on waiting submissions on the Celery path, where the broker's FIFO cannot be counted
per client: the web process remembers what it sent and asks the database what still waits."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import update

from app.db import SessionFactory, make_engine, make_session_factory, transaction
from app.grading.base import AddressQueueFull, AddressShareFull
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


def test_established_learners_do_not_count_against_the_cap_on_new_ones(session_factory: SessionFactory) -> None:
    waiting = WaitingByAddress(session_factory=session_factory, limit=2, share=10)
    ids = [f"e{number}" for number in range(6)] + ["f1", "f2", "f3"]
    store_queued(session_factory, *ids)
    for submission_id in ids[:6]:
        waiting.admit("10.0.0.1", submission_id, fresh=False)  # a class, all waiting
    waiting.admit("10.0.0.1", "f1", fresh=True)
    waiting.admit("10.0.0.1", "f2", fresh=True)
    with pytest.raises(AddressQueueFull):
        waiting.admit("10.0.0.1", "f3", fresh=True)  # new learners still get only their two places


def test_an_address_holds_at_most_its_share_whoever_sends(session_factory: SessionFactory) -> None:
    waiting = WaitingByAddress(session_factory=session_factory, limit=2, share=4)
    store_queued(session_factory, "e1", "e2", "e3", "e4", "e5", "x1")
    for submission_id in ["e1", "e2", "e3", "e4"]:
        waiting.admit("10.0.0.1", submission_id, fresh=False)
    with pytest.raises(AddressShareFull, match="4 submissions from your network address are waiting"):
        waiting.admit("10.0.0.1", "e5", fresh=False)
    waiting.admit("10.0.0.2", "x1", fresh=False)  # another address has its own share
    with transaction(session_factory) as session:
        session.execute(update(Submission).where(Submission.id == "e1").values(status="running"))
    waiting.admit("10.0.0.1", "e5", fresh=False)


def test_the_share_is_never_below_the_cap_on_new_learners(session_factory: SessionFactory) -> None:
    assert WaitingByAddress(session_factory=session_factory, limit=4, share=2).share == 4
