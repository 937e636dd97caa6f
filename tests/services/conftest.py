"""Fixtures for the services tests: a fresh PostgreSQL database and a private Redis key prefix per session, and
one real site (web server behind a cuttable Redis relay, two Celery workers) shared by the tests.

PostgreSQL and Redis are expected on 127.0.0.1 (5432, database `test`, trust auth; 6379). Elsewhere set
PAPERLAB_TEST_POSTGRES_URL (an admin URL, e.g. `postgresql://postgres@127.0.0.1:55433/test`) and
PAPERLAB_TEST_REDIS_URL (e.g. `redis://127.0.0.1:6379/15`). Unreachable services skip these tests, except in CI
(`CI=true`), where they fail."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg
import pytest
import redis

from grader.sandbox import probe
from tests.services.services_support import PROBLEM_SOURCES, Cluster, RedisRelay

POSTGRES_URLS = [
    os.environ.get("PAPERLAB_TEST_POSTGRES_URL", ""),
    "postgresql://postgres@127.0.0.1:5432/test",
    "postgresql://root@127.0.0.1:5432/test",
]
REDIS_URL = os.environ.get("PAPERLAB_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
# Settings that make failures show up within a test's time: see the Settings table of docs/operations.md for each.
FAST_RECOVERY = {
    "PAPERLAB_SWEEP_INTERVAL_S": "1",
    "PAPERLAB_GRADING_LEASE_MARGIN_S": "1",
    "PAPERLAB_CELERY_VISIBILITY_TIMEOUT_S": "4",
    "PAPERLAB_RATE_LIMIT_PER_MINUTE": "1000",
    # Every test learner connects from 127.0.0.1: the limits per network address must not count them as one.
    "PAPERLAB_ADDRESS_RATE_LIMIT_PER_MINUTE": "100000",
    "PAPERLAB_QUEUE_LIMIT_PER_ADDRESS": "1000",
    "PAPERLAB_STREAMS_PER_ADDRESS": "1000",
    "PAPERLAB_SECRET_KEY": "services-test-secret-key-0123456789",
}


def unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the services tests must run)")
    pytest.skip(reason)


@dataclass(frozen=True)
class RedisTarget:
    host: str
    port: int
    db: int
    prefix: str

    def url(self, port: int | None = None) -> str:
        return f"redis://{self.host}:{port or self.port}/{self.db}"


@contextmanager
def fresh_database() -> Iterator[str]:
    """SQLAlchemy URL of a new, empty PostgreSQL database, dropped afterwards."""
    errors = []
    for admin_url in filter(None, POSTGRES_URLS):
        try:
            admin = psycopg.connect(admin_url, autocommit=True, connect_timeout=3)
            break
        except psycopg.Error as exc:
            errors.append(f"{admin_url}: {str(exc).strip()}")
    else:
        unavailable("PostgreSQL is not reachable: " + "; ".join(errors))
    name = f"paperlab_test_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        info = admin.info
        url = f"postgresql+psycopg://{info.user}@{info.host}:{info.port}/{name}"
        try:
            yield url
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A database for the session's shared site (the distributed-grading tests)."""
    with fresh_database() as url:
        yield url


@pytest.fixture(scope="session")
def redis_target() -> Iterator[RedisTarget]:
    """A Redis DB and a key prefix nobody else uses; every key under it is deleted afterwards."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        client.close()
        unavailable(f"Redis is not reachable at {REDIS_URL}: {exc}")
    kwargs = client.connection_pool.connection_kwargs
    target = RedisTarget(kwargs["host"], kwargs["port"], kwargs.get("db", 0), f"paperlab-test-{uuid.uuid4().hex[:8]}:")
    try:
        yield target
    finally:
        keys = list(client.scan_iter(match=f"{target.prefix}*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


@pytest.fixture(scope="session")
def site(
    postgres_url: str, redis_target: RedisTarget, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Cluster, RedisRelay]]:
    root = tmp_path_factory.mktemp("site")
    problems = root / "problems"
    for source in PROBLEM_SOURCES:
        shutil.copytree(source, problems / source.name)
    base = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PAPERLAB_", "CELERY_")) and key != "DATABASE_URL"
    }
    common = {
        **base,
        **FAST_RECOVERY,
        "DATABASE_URL": postgres_url,
        "PAPERLAB_VAR_DIR": str(root / "var"),
        "PAPERLAB_PROBLEMS_DIR": str(problems),
        "PAPERLAB_REDIS_KEY_PREFIX": redis_target.prefix,
    }
    if not probe().available:  # as in tests/app: these tests are about the queue; tests/grader prove the sandbox
        common["PAPERLAB_UNSAFE_NO_SANDBOX"] = "1"
    relay = RedisRelay((redis_target.host, redis_target.port))
    relay.start()
    cluster = Cluster(
        # The web server reaches the broker through the relay (so a test can take the broker away from it);
        # the workers reach Redis directly.
        web_env={**common, "CELERY_BROKER_URL": redis_target.url(relay.port)},
        worker_env={**common, "CELERY_BROKER_URL": redis_target.url()},
        log_dir=root,
    )
    try:
        cluster.start_web()
        cluster.start_worker()
        cluster.start_worker()
        cluster.wait_web_ready()
        cluster.wait_workers_ready(2)
        yield cluster, relay
    finally:
        cluster.stop()
        relay.stop()


@pytest.fixture
def cluster(site: tuple[Cluster, RedisRelay]) -> Iterator[Cluster]:
    cluster, relay = site
    assert cluster.web is not None and cluster.web.popen is not None and cluster.web.popen.poll() is None
    yield cluster
    if not relay.running:
        relay.start()  # whatever a test did, the next one starts with the broker reachable


@pytest.fixture
def relay(site: tuple[Cluster, RedisRelay]) -> RedisRelay:
    return site[1]


@pytest.fixture
def database(postgres_url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(postgres_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as db:
        yield db
