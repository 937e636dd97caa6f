"""Flooding: a fresh cookie per POST makes a fresh learner, so the per-learner limits do not hold a flood back;
limits per network address do, and a fair queue keeps a flood from delaying anyone else by more than one
grading."""

from __future__ import annotations

from collections.abc import Callable

from app.models import Submission
from tests.app.app_support import (
    CORRECT,
    HeldGrader,
    TurnstileGrader,
    from_address,
    held_backend,
    submit,
    wait_for_verdict,
)
from tests.app.conftest import Server

FLOODER = "10.0.0.1"
BYSTANDER = "10.0.0.2"


def stored_submissions(server: Server) -> int:
    with server.app.state.paperlab.session_factory() as session:
        count: int = session.query(Submission).count()
        return count


def test_a_flood_from_one_address_is_refused_beyond_the_per_address_rate(make_server: Callable[..., Server]) -> None:
    grader = HeldGrader()
    grader.release.set()  # grades at once: only the rate limit can refuse
    server = make_server(backend_factory=held_backend(grader), address_rate_limit_per_minute=3)
    for _ in range(3):
        fresh = from_address(server.app, FLOODER)
        wait_for_verdict(fresh, submit(fresh, CORRECT).json()["id"])
    refused = submit(from_address(server.app, FLOODER), CORRECT)
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert "at most 3 times a minute from one network address" in refused.json()["detail"]
    assert stored_submissions(server) == 3
    assert submit(from_address(server.app, BYSTANDER), CORRECT).status_code == 202


def test_one_address_may_have_only_a_few_submissions_waiting(make_server: Callable[..., Server]) -> None:
    grader = TurnstileGrader()
    server = make_server(backend_factory=held_backend(grader), grading_concurrency=1, queue_limit_per_address=2)
    assert submit(from_address(server.app, FLOODER), CORRECT).status_code == 202
    grader.wait_for_calls(1)  # being graded: not waiting any more
    for _ in range(2):
        assert submit(from_address(server.app, FLOODER), CORRECT).status_code == 202
    refused = submit(from_address(server.app, FLOODER), CORRECT)
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) >= 1
    assert "2 submissions from your network address are already waiting" in refused.json()["detail"]
    assert stored_submissions(server) == 3  # the refused one is not kept
    assert submit(from_address(server.app, BYSTANDER), CORRECT).status_code == 202
    for _ in range(4):
        grader.admit()


def test_a_second_learner_is_graded_before_the_flooders_later_submissions(
    make_server: Callable[..., Server],
) -> None:
    grader = TurnstileGrader()
    server = make_server(backend_factory=held_backend(grader), grading_concurrency=1)
    flood = [f"{CORRECT}# flood {number}\n" for number in range(4)]
    victim = f"{CORRECT}# victim\n"
    submit(from_address(server.app, FLOODER), flood[0])
    grader.wait_for_calls(1)  # the one grading slot is busy with the flood
    for code in flood[1:]:
        assert submit(from_address(server.app, FLOODER), code).status_code == 202
    assert submit(from_address(server.app, BYSTANDER), victim).status_code == 202
    for _ in range(5):
        grader.admit()
    order = grader.wait_for_calls(5)
    assert order == [flood[0], victim, *flood[1:]]  # the victim waited for one grading, not for the flood
