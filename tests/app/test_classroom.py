"""A class behind one network address (issue 28): the per-address caps bound only learners who have not earned
trust yet (app.trust), so thirty established learners pressing Run together are all graded, while a flood of
fresh cookies from the very same address is still refused. In-process backend; the Celery variant is in
tests/services/test_classroom_celery.py."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import update

from app.models import Learner, utcnow
from app.trust import mark_established
from tests.app.app_support import (
    CORRECT,
    HeldGrader,
    TestClient,
    TurnstileGrader,
    events_path,
    from_address,
    held_backend,
    open_stream,
    run,
    submit,
    wait_for_verdict,
)
from tests.app.conftest import Server

logger = logging.getLogger(__name__)

LAB = "10.20.30.40"  # the classroom's NAT address
ELSEWHERE = "10.99.0.1"
CLASS_SIZE = 30


def learner_id(server: Server, browser: TestClient) -> str:
    browser.get("/")  # the first page view mints the learner cookie
    found = server.app.state.paperlab.signer.verify(browser.cookies["paperlab_learner"])
    assert found is not None
    return str(found)


def vouch_for(server: Server, browser: TestClient) -> None:
    """What a course enrolment will do: one call marks the learner established."""
    with server.app.state.paperlab.session_factory() as session:
        mark_established(session=session, learner_id=learner_id(server, browser), reason="test:enrolled")


def time_passes(server: Server, *, minutes: float) -> None:
    """Every learner was first seen `minutes` earlier than the database says."""
    with server.app.state.paperlab.session_factory() as session:
        session.execute(update(Learner).values(created_at=utcnow() - timedelta(minutes=minutes)))
        session.commit()


def submit_together(browsers: list[TestClient]) -> list[httpx.Response]:
    """Every browser presses Run at the same moment."""
    start = threading.Barrier(len(browsers))
    responses: list[httpx.Response | None] = [None] * len(browsers)

    def press(index: int) -> None:
        start.wait()
        responses[index] = submit(browsers[index], CORRECT)

    threads = [threading.Thread(target=press, args=(index,)) for index in range(len(browsers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(response is not None for response in responses)
    return [response for response in responses if response is not None]


@pytest.mark.slow
def test_thirty_established_learners_behind_one_address_are_all_graded(make_server: Callable[..., Server]) -> None:
    server = make_server()  # the default limits: 4 waiting and 120 a minute per address, for new learners
    lab = [from_address(server.app, LAB) for _ in range(CLASS_SIZE)]
    for browser in lab:  # each earns trust: a graded run...
        assert run(browser, CORRECT)["status"] == "done"
    time_passes(server, minutes=10)  # ...and the five minutes since they were first seen
    started = time.monotonic()
    responses = submit_together(lab)
    assert [response.status_code for response in responses] == [202] * CLASS_SIZE, [
        response.json()["detail"] for response in responses if response.status_code != 202]
    verdicts = [wait_for_verdict(browser, response.json()["id"])
                for browser, response in zip(lab, responses, strict=True)]
    last_wait_s = time.monotonic() - started
    assert [verdict["status"] for verdict in verdicts] == ["done"] * CLASS_SIZE
    assert all(verdict["report"]["solved"] for verdict in verdicts)
    # A figure to read (`-o log_cli=true --log-cli-level=INFO`), never a limit: machines are noisy.
    logger.info("%d learners behind one address: the last verdict came %.2f s after they pressed Run",
                CLASS_SIZE, last_wait_s)


def test_a_flood_of_fresh_cookies_from_the_class_address_is_still_refused(make_server: Callable[..., Server]) -> None:
    grader = TurnstileGrader()
    server = make_server(backend_factory=held_backend(grader), grading_concurrency=1)
    class_ = [from_address(server.app, LAB) for _ in range(10)]
    for browser in class_:
        vouch_for(server, browser)
    assert submit(from_address(server.app, LAB), CORRECT).status_code == 202
    grader.wait_for_calls(1)  # the one grading slot is busy: whatever comes next waits
    assert [submit(browser, CORRECT).status_code for browser in class_] == [202] * 10
    flood = [submit(from_address(server.app, LAB), CORRECT) for _ in range(6)]
    assert [response.status_code for response in flood] == [202] * 4 + [429] * 2
    assert "4 submissions from your network address are already waiting" in flood[-1].json()["detail"]
    assert submit(from_address(server.app, ELSEWHERE), CORRECT).status_code == 202
    for _ in range(1 + 10 + 4 + 1):
        grader.admit()
    grader.wait_for_calls(16)


def test_established_learners_are_not_held_to_the_address_rate(make_server: Callable[..., Server]) -> None:
    grader = HeldGrader()
    grader.release.set()
    server = make_server(backend_factory=held_backend(grader), address_rate_limit_per_minute=3)
    for _ in range(3):
        fresh = from_address(server.app, LAB)
        wait_for_verdict(fresh, submit(fresh, CORRECT).json()["id"])
    refused = submit(from_address(server.app, LAB), CORRECT)
    assert refused.status_code == 429 and "at most 3 times a minute" in refused.json()["detail"]
    class_ = [from_address(server.app, LAB) for _ in range(5)]
    for browser in class_:
        vouch_for(server, browser)
    assert [submit(browser, CORRECT).status_code for browser in class_] == [202] * 5
    assert submit(from_address(server.app, LAB), CORRECT).status_code == 429  # the fresh still are


def test_an_established_learner_is_still_bounded_as_a_learner(make_server: Callable[..., Server]) -> None:
    grader = HeldGrader()
    server = make_server(backend_factory=held_backend(grader), rate_limit_per_minute=2)
    ada = from_address(server.app, LAB)
    vouch_for(server, ada)
    assert submit(ada, CORRECT).status_code == 202
    in_flight = submit(ada, CORRECT)
    assert in_flight.status_code == 429 and "still being graded" in in_flight.json()["detail"]
    grader.release.set()
    server.app.state.paperlab.backend.wait_idle()
    assert submit(ada, CORRECT).status_code == 202
    server.app.state.paperlab.backend.wait_idle()
    over_rate = submit(ada, CORRECT)
    assert over_rate.status_code == 429 and "at most 2 times a minute" in over_rate.json()["detail"]


def test_a_learner_graded_minutes_ago_is_still_new(make_server: Callable[..., Server]) -> None:
    """Farming identities takes time as well as a graded run each: a cookie graded just now still counts as new."""
    grader = TurnstileGrader()
    server = make_server(backend_factory=held_backend(grader), grading_concurrency=1, queue_limit_per_address=1)
    farmed = from_address(server.app, LAB)
    first = submit(farmed, CORRECT).json()["id"]
    grader.admit()
    wait_for_verdict(farmed, first)  # graded: one half of what trust takes
    assert submit(from_address(server.app, LAB), CORRECT).status_code == 202
    grader.wait_for_calls(2)  # being graded
    assert submit(from_address(server.app, LAB), CORRECT).status_code == 202  # the one new place
    refused = submit(farmed, CORRECT)
    assert refused.status_code == 429 and "already waiting" in refused.json()["detail"]
    time_passes(server, minutes=10)
    assert submit(farmed, CORRECT).status_code == 202  # now it has both
    for _ in range(3):
        grader.admit()
    grader.wait_for_calls(4)


def test_one_address_may_fill_at_most_half_the_queue(make_server: Callable[..., Server]) -> None:
    grader = TurnstileGrader()
    server = make_server(backend_factory=held_backend(grader), grading_concurrency=1, queue_limit=12)
    assert submit(from_address(server.app, ELSEWHERE), CORRECT).status_code == 202
    grader.wait_for_calls(1)
    class_ = [from_address(server.app, LAB) for _ in range(7)]
    for browser in class_:
        vouch_for(server, browser)
    statuses = [submit(browser, CORRECT) for browser in class_]
    assert [response.status_code for response in statuses] == [202] * 6 + [429]
    assert "6 submissions from your network address are waiting to be graded, as many as one address may have" \
        in statuses[-1].json()["detail"]
    assert submit(from_address(server.app, ELSEWHERE), CORRECT).status_code == 202  # the rest is others'
    for _ in range(8):
        grader.admit()
    grader.wait_for_calls(8)


def test_established_learners_follow_their_runs_beyond_the_address_stream_cap(
    make_server: Callable[..., Server],
) -> None:
    grader = HeldGrader()
    server = make_server(backend_factory=held_backend(grader), streams_per_address=2)
    class_ = [from_address(server.app, LAB) for _ in range(4)]
    for browser in class_:
        vouch_for(server, browser)
    new = [from_address(server.app, LAB) for _ in range(3)]
    with ExitStack() as stack:
        stack.callback(grader.release.set)  # every stream then ends with its report
        for browser in [*class_, *new[:2]]:
            assert open_stream(stack, browser, submit(browser, CORRECT).json()["id"]).status_code == 200
        refused = new[2].get(events_path(submit(new[2], CORRECT).json()["id"]))
        assert refused.status_code == 429  # the new learners still share two places
        assert "2 live result streams are open from your network address" in refused.json()["detail"]
