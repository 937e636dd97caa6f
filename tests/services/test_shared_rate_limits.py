"""Rate limits shared by every web process of a site that grades on Celery: the windows live in Redis, so a
guesser or a flood spread over several processes (here: several `RedisSlidingWindow`s, each with its own client,
as each process has) gets no more than one process would allow."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from app.grading.base import BackendHealth, Submitter
from app.main import create_app
from app.ratelimit import RedisSlidingWindow, SlidingWindowLimit, make_rate_limit
from app.settings import Settings
from tests.app.app_support import PROBLEMS, TestClient
from tests.app.instructor_support import make_instructor, sign_in
from tests.services.conftest import RedisTarget

pytestmark = [pytest.mark.services]

Process = Callable[..., RedisSlidingWindow]


@pytest.fixture
def process(redis_target: RedisTarget, request: pytest.FixtureRequest) -> Iterator[Process]:
    """Builds the limit as one web process would: its own Redis client, the site's prefix, the limit's name."""
    clients: list[redis.Redis] = []
    name = f"test-{request.node.name[:40]}"

    def build(*, limit: int = 3, window_s: float = 60.0, port: int | None = None) -> RedisSlidingWindow:
        client = redis.Redis.from_url(redis_target.url(port), socket_connect_timeout=0.5, socket_timeout=0.5)
        clients.append(client)
        return RedisSlidingWindow(client, prefix=redis_target.prefix, name=name, limit=limit, window_s=window_s)

    yield build
    for client in clients:
        client.close()


def test_processes_share_one_window(process: Process) -> None:
    first, second, third = process(limit=3), process(limit=3), process(limit=3)
    assert [first.take("203.0.113.9"), second.take("203.0.113.9"), third.take("203.0.113.9")] == [None] * 3
    wait = first.take("203.0.113.9")
    assert wait is not None and 59 <= wait <= 60
    assert second.take("203.0.113.9") is not None


def test_keys_are_counted_apart(process: Process) -> None:
    limit = process(limit=1)
    assert limit.take("a@example.org") is None
    assert limit.take("b@example.org") is None
    assert limit.take("a@example.org") is not None


def test_a_refused_attempt_is_not_counted(process: Process) -> None:
    limit = process(limit=1, window_s=0.4)
    assert limit.take("k") is None
    for _ in range(5):
        assert limit.take("k") is not None
    time.sleep(0.6)  # the one admitted event has left the window; the refusals never entered it
    assert limit.take("k") is None


def test_give_back_uncounts_the_latest_event_for_every_process(process: Process) -> None:
    first, second = process(limit=2), process(limit=2)
    assert first.take("k") is None and first.take("k") is None
    second.give_back("k")
    assert first.take("k") is None
    assert second.take("k") is not None


def test_the_window_slides(process: Process) -> None:
    limit = process(limit=2, window_s=0.5)
    assert limit.take("k") is None
    time.sleep(0.3)
    assert limit.take("k") is None
    assert limit.take("k") is not None  # two events in the last 0.5 s
    time.sleep(0.3)  # the first has left the window, the second not
    assert limit.take("k") is None
    assert limit.take("k") is not None


def test_no_address_or_email_is_written_to_redis(process: Process, redis_target: RedisTarget) -> None:
    limit = process(limit=5)
    limit.take("learner@example.org")
    client = redis.Redis.from_url(redis_target.url())
    try:
        keys = [key.decode() for key in client.scan_iter(match=f"{redis_target.prefix}ratelimit:*")]
    finally:
        client.close()
    assert limit.redis_key("learner@example.org") in keys
    assert not any("learner" in key or "example" in key for key in keys)


def test_an_unreachable_redis_falls_back_to_counting_in_the_process(process: Process) -> None:
    limit = process(limit=2, port=1)  # nothing listens on port 1
    assert limit.take("k") is None and limit.take("k") is None
    assert limit.take("k") is not None  # still limited, by this process alone
    limit.give_back("k")
    assert limit.take("k") is None


@pytest.mark.parametrize(("client", "kind"), [(None, SlidingWindowLimit), ("redis", RedisSlidingWindow)])
def test_the_site_decides_where_limits_live(client: str | None, kind: type, redis_target: RedisTarget) -> None:
    connection = redis.Redis.from_url(redis_target.url()) if client else None
    try:
        made = make_rate_limit(connection, prefix=redis_target.prefix, name="n", limit=1, window_s=1.0)
    finally:
        if connection is not None:
            connection.close()
    assert type(made) is kind


class IdleBackend:
    """Grades nothing: these tests only sign in."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def submit(self, submission_id: str, *, submitter: Submitter) -> None:
        raise AssertionError("nothing is submitted here")

    def stop_grading(self, submission_id: str) -> None:
        raise AssertionError("nothing is graded here")

    def health(self) -> BackendHealth:
        return BackendHealth(backend="idle", available=True, sandbox="none", queue_depth=0, queue_limit=None)


def test_sign_in_attempts_spread_over_web_processes_share_one_limit(
    redis_target: RedisTarget, tmp_path: Path
) -> None:
    """Two web servers of one site (one database, one Redis): a guesser alternating between them gets the five
    tries an hour one server allows, not ten."""
    settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path / 'site.db'}",
                        var_dir=tmp_path / "var", problems_dir=PROBLEMS, celery_broker_url=redis_target.url(),
                        redis_key_prefix=redis_target.prefix, secret_key="shared-rate-limit-secret-0123456789")
    apps = [create_app(settings, backend_factory=lambda _: IdleBackend()) for _ in range(2)]
    servers = [TestClient(app) for app in apps]
    with servers[0], servers[1]:
        make_instructor(apps[0])
        statuses = [sign_in(servers[n % 2], password=f"wrong password {n}").status_code for n in range(6)]
        assert statuses == [401] * 5 + [429]
        assert sign_in(servers[1]).status_code == 429  # even the right password, on either server
