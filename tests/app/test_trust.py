"""Who is established (app.trust): a learner earns it with graded work and time since they were first seen,
or something that vouches for them marks them with one call; either is written to their row once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.db import SessionFactory, make_engine, make_session_factory, transaction
from app.migrate import upgrade
from app.models import Learner, Submission, SubmissionStatus, utcnow
from app.settings import Settings
from app.trust import EARNED, EstablishedAfter, is_established, mark_established

RULE = EstablishedAfter(graded_submissions=2, first_seen_s=600)


@pytest.fixture
def session_factory(make_settings: Callable[..., Settings]) -> Iterator[SessionFactory]:
    engine = make_engine(make_settings().database_url)
    upgrade(engine)
    yield make_session_factory(engine)
    engine.dispose()


def learner_with(session_factory: SessionFactory, *, seen_s_ago: float, statuses: list[SubmissionStatus]) -> str:
    learner_id = f"learner-{seen_s_ago}-{len(statuses)}"
    with transaction(session_factory) as session:
        session.add(Learner(id=learner_id, created_at=utcnow() - timedelta(seconds=seen_s_ago)))
        session.flush()
        for status in statuses:
            session.add(Submission(learner_id=learner_id, problem="p", code="", status=status))
    return learner_id


def established(session_factory: SessionFactory, learner_id: str) -> bool:
    with session_factory() as session:
        return is_established(session=session, learner_id=learner_id, rule=RULE)


def row(session_factory: SessionFactory, learner_id: str) -> Learner:
    with session_factory() as session:
        learner = session.get(Learner, learner_id)
        assert learner is not None
        return learner


@pytest.mark.parametrize(
    ("seen_s_ago", "statuses", "expected"),
    [
        pytest.param(3600, ["done", "done"], True, id="graded-work-and-time"),
        pytest.param(3600, ["done", "done", "queued"], True, id="a-run-in-flight-changes-nothing"),
        pytest.param(60, ["done", "done"], False, id="graded-but-minutes-old"),
        pytest.param(3600, ["done"], False, id="old-but-too-little-graded"),
        pytest.param(3600, [], False, id="old-with-nothing-graded"),
        pytest.param(3600, ["done", "error"], False, id="a-grader-failure-is-not-graded-work"),
        pytest.param(3600, ["done", "running"], False, id="in-flight-is-not-graded"),
    ],
)
def test_trust_is_earned_by_graded_work_and_time(
    session_factory: SessionFactory, seen_s_ago: float, statuses: list[SubmissionStatus], expected: bool
) -> None:
    learner_id = learner_with(session_factory, seen_s_ago=seen_s_ago, statuses=statuses)
    assert established(session_factory, learner_id) is expected


def test_a_learner_without_a_row_is_fresh(session_factory: SessionFactory) -> None:
    assert established(session_factory, "a-cookie-minted-just-now") is False


def test_earned_trust_is_written_once_and_kept(session_factory: SessionFactory) -> None:
    learner_id = learner_with(session_factory, seen_s_ago=3600, statuses=["done", "done"])
    assert row(session_factory, learner_id).established_at is None
    assert established(session_factory, learner_id)
    recorded = row(session_factory, learner_id)
    assert recorded.established_by == EARNED and recorded.established_at is not None
    with transaction(session_factory) as session:  # the graded work is gone (say, deleted): trust stays
        session.execute(update(Submission).where(Submission.learner_id == learner_id).values(status="error"))
    assert established(session_factory, learner_id)


def test_mark_established_is_the_one_call_for_whatever_vouches(session_factory: SessionFactory) -> None:
    learner_id = learner_with(session_factory, seen_s_ago=0, statuses=[])
    assert not established(session_factory, learner_id)
    with session_factory() as session:
        mark_established(session=session, learner_id=learner_id, reason="course:ml-101")
    assert established(session_factory, learner_id)
    assert row(session_factory, learner_id).established_by == "course:ml-101"


def test_mark_established_makes_the_row_and_keeps_the_first_reason(session_factory: SessionFactory) -> None:
    with session_factory() as session:
        mark_established(session=session, learner_id="new-learner", reason="lti")
        mark_established(session=session, learner_id="new-learner", reason="api-token")
    assert established(session_factory, "new-learner")
    assert row(session_factory, "new-learner").established_by == "lti"


@pytest.mark.parametrize("reason", ["", "x" * 33])
def test_mark_established_wants_a_reason_that_fits(session_factory: SessionFactory, reason: str) -> None:
    with session_factory() as session, pytest.raises(ValueError, match="the reason is 1 to 32 characters"):
        mark_established(session=session, learner_id="someone", reason=reason)


def test_the_thresholds_default_to_one_graded_submission_and_five_minutes() -> None:
    default = Settings(_env_file=None).established_after
    assert default == EstablishedAfter(graded_submissions=1, first_seen_s=300)


def test_the_thresholds_are_one_setting_read_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERLAB_ESTABLISHED_AFTER", '{"graded_submissions": 3, "first_seen_s": 60}')
    settings = Settings(_env_file=None)
    assert settings.established_after == EstablishedAfter(graded_submissions=3, first_seen_s=60)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param('{"graded_submissions": 0}', id="no-graded-work"),
        pytest.param('{"first_seen_s": -1}', id="negative-time"),
        pytest.param('{"graded": 1}', id="misspelt-field"),
    ],
)
def test_thresholds_that_make_no_sense_are_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("PAPERLAB_ESTABLISHED_AFTER", value)
    with pytest.raises(ValueError, match="established_after"):
        Settings(_env_file=None)
