"""Event streams under abuse: an open stream holds no database connection, one learner or one network address
can keep only a few open, and a shutdown ends them instead of waiting for them."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack

import httpx
import pytest

from app.main import create_app
from app.serving import make_server
from app.settings import Settings
from tests.app.app_support import (
    CORRECT,
    HeldGrader,
    TestClient,
    events_path,
    from_address,
    held_backend,
    open_stream,
    submit,
)
from tests.app.conftest import Server

# Far above what a page or an API read takes here, far below the 30 s a request waits for a pooled connection.
FAST_ENOUGH_S = 3.0


@pytest.fixture
def grader() -> Iterator[HeldGrader]:
    held = HeldGrader()
    yield held
    held.release.set()  # every stream then ends with its report


def test_open_streams_hold_no_database_connection(make_server: Callable[..., Server], grader: HeldGrader) -> None:
    # 5 learners x 4 streams = 20 open streams, more than the pool's 15 connections (5 + 10 overflow).
    server = make_server(backend_factory=held_backend(grader), grading_concurrency=1)
    engine = server.app.state.paperlab.engine
    with ExitStack() as stack:
        for number in range(5):
            learner = from_address(server.app, f"10.0.0.{number + 1}")
            submission_id = submit(learner, CORRECT).json()["id"]
            for _ in range(4):
                assert open_stream(stack, learner, submission_id).status_code == 200
        assert engine.pool.checkedout() == 0
        other = server.learner()
        for path in ("/", "/problems/add_one", "/api/problems/add_one/submissions", "/api/problems"):
            started = time.monotonic()
            response = other.get(path)
            assert response.status_code == 200, (path, response.text)
            assert time.monotonic() - started < FAST_ENOUGH_S, path
        assert submit(other, CORRECT).status_code == 202
        assert engine.pool.checkedout() == 0
        grader.release.set()


@pytest.mark.parametrize(
    ("caps", "same_learner", "fragment"),
    [
        pytest.param({"streams_per_learner": 2}, True, "You have 2 live result streams open", id="per-learner"),
        pytest.param({"streams_per_address": 3}, False, "3 live result streams are open from your network",
                     id="per-address"),
    ],
)
def test_streams_beyond_a_cap_get_429_with_retry_after(
    make_server: Callable[..., Server], grader: HeldGrader, caps: dict[str, int], same_learner: bool, fragment: str
) -> None:
    server = make_server(backend_factory=held_backend(grader), **caps)
    cap = next(iter(caps.values()))
    learner = from_address(server.app, "10.0.0.1")
    submission_id = submit(learner, CORRECT).json()["id"]
    with ExitStack() as stack:
        for _ in range(cap):
            # Other learners at the same address follow a submission of their own.
            client = learner if same_learner else from_address(server.app, "10.0.0.1")
            own = submission_id if same_learner else submit(client, CORRECT).json()["id"]
            assert open_stream(stack, client, own).status_code == 200
        refused = learner.get(events_path(submission_id))
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        assert fragment in refused.json()["detail"]
        stranger = from_address(server.app, "10.0.0.2")
        assert open_stream(stack, stranger, submit(stranger, CORRECT).json()["id"]).status_code == 200
        grader.release.set()


def test_a_closed_stream_frees_its_place(make_server: Callable[..., Server], grader: HeldGrader) -> None:
    server = make_server(backend_factory=held_backend(grader), streams_per_learner=1)
    submission_id = submit(server.client, CORRECT).json()["id"]
    with server.client.stream("GET", events_path(submission_id)) as first:
        assert first.status_code == 200
    deadline = time.monotonic() + FAST_ENOUGH_S
    while (status := stream_status(server.client, submission_id)) == 429:
        assert time.monotonic() < deadline, "the closed stream still counts"
        time.sleep(0.05)
    assert status == 200


def stream_status(client: TestClient, submission_id: str) -> int:
    """The status a new stream opens with, closed at once (read whole, a waiting submission's stream would
    last until its grading ends)."""
    with client.stream("GET", events_path(submission_id)) as response:
        status: int = response.status_code
        return status


def test_metrics_count_the_open_streams(make_server: Callable[..., Server], grader: HeldGrader) -> None:
    server = make_server(backend_factory=held_backend(grader))
    submission_id = submit(server.client, CORRECT).json()["id"]
    with ExitStack() as stack:
        for _ in range(3):
            open_stream(stack, server.client, submission_id)
        assert "paperlab_open_event_streams 3.0" in server.learner().get("/metrics").text
        grader.release.set()


def test_a_learner_without_a_cookie_opens_no_stream(client: TestClient) -> None:
    response = client.get(events_path("00000000-0000-0000-0000-000000000000"))
    assert response.status_code == 404
    assert "set-cookie" not in response.headers  # nobody to mint a learner for: no submission can be theirs


def test_shutdown_ends_open_streams(make_settings: Callable[..., Settings], grader: HeldGrader) -> None:
    application = create_app(make_settings(), backend_factory=held_backend(grader))
    server = make_server(application, host="127.0.0.1", port=0, log_level="warning")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not (server.started and server.servers):
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    ended: list[float] = []

    def follow(client: httpx.Client, submission_id: str) -> None:
        with client.stream("GET", events_path(submission_id)) as response:
            for _ in response.iter_lines():
                pass
        ended.append(time.monotonic())

    with ExitStack() as clients:
        followers = []
        for _ in range(3):
            client = clients.enter_context(httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60))
            submission_id = submit(client, CORRECT).json()["id"]
            followers.append(threading.Thread(target=follow, args=(client, submission_id), daemon=True))
            followers[-1].start()
        time.sleep(0.5)  # the streams are open, their gradings held
        asked = time.monotonic()
        server.should_exit = True
        for follower in followers:
            follower.join(FAST_ENOUGH_S)
        assert len(ended) == 3 and max(ended) - asked < FAST_ENOUGH_S, "open streams held the shutdown"
    grader.release.set()  # the gradings in progress finish; then the server stops
    thread.join(30)
    assert not thread.is_alive()
