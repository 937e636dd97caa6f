"""Fixtures for the web app's tests: an app factory taking test settings, a temporary SQLite file and var
dir per test, the real grader (one warm WorkerPool shared by the whole session, because starting one costs
seconds), and small action helpers (submit, wait for the verdict, read the event stream).

The app and the engine are imported inside the fixtures: a test that needs neither (the Markdown renderer's, the
settings') is collected without torch."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from app.settings import Settings, environment_variable

if TYPE_CHECKING:
    from fastapi import FastAPI

    from app.grading.inprocess import InProcessBackend
    from app.state import BackendContext, BackendFactory
    from grader.pool import WorkerPool
    from tests.app.app_support import TestClient

PROBLEMS = Path(__file__).parent / "fixtures" / "problems"  # app_support.PROBLEMS, without importing the engine


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's DATABASE_URL / CELERY_BROKER_URL / PAPERLAB_* must not leak into these tests."""
    for name in Settings.model_fields:
        monkeypatch.delenv(environment_variable(name), raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    # A server a test starts (here or as a subprocess) leaves the catalogue unprepared, as tests/conftest.py says;
    # tests/app/test_prepare.py asks for it.
    monkeypatch.setenv(environment_variable("prepare_problems"), "0")


@pytest.fixture(scope="session")
def sandbox_available() -> bool:
    from grader.sandbox import probe

    return probe().available


class SharedPool:
    """The session's pool, handed to each test app; the app's stop() must not close it."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool
        self.sandbox = pool.sandbox

    def start(self) -> None:
        pass

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pool, name)


@pytest.fixture(scope="session")
def worker_pool(sandbox_available: bool) -> Iterator[WorkerPool]:
    # Where this machine cannot make a bubblewrap sandbox, grade without one: these tests are about the web
    # app, and tests/grader proves the sandbox. The report then says "sandbox": "none".
    from grader.pool import WorkerPool

    with WorkerPool(size=2, unsafe=not sandbox_available) as pool:
        yield pool


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "database_url": f"sqlite:///{tmp_path / 'paperlab.db'}",
            "var_dir": tmp_path / "var",
            "problems_dir": PROBLEMS,
            "grading_concurrency": 2,
            "secret_key": "test-secret-key-0123456789abcdef",
            "celery_broker_url": None,
            **overrides,
        }
        return Settings(_env_file=None, **values)

    return make


@pytest.fixture
def real_backend(worker_pool: WorkerPool) -> BackendFactory:
    """The in-process backend exactly as the app builds it, on the session's warm pool."""
    from app.grading.inprocess import InProcessBackend

    def factory(context: BackendContext) -> InProcessBackend:
        return InProcessBackend(
            session_factory=context.session_factory,
            problems=context.catalog,
            bus=context.bus,
            concurrency=context.settings.grading_concurrency,
            queue_limit=context.settings.queue_limit,
            queue_limit_per_address=context.settings.queue_limit_per_address,
            pool_factory=lambda: SharedPool(worker_pool),
            slow_call_s=context.settings.slow_call_s,
            prepare_problems=context.settings.prepare_problems,
        )

    return factory


@dataclass
class Server:
    app: FastAPI
    client: TestClient

    def learner(self) -> TestClient:
        """Another browser: its own cookie jar, so another learner."""
        from tests.app.app_support import TestClient

        return TestClient(self.app)


@pytest.fixture
def make_server(
    make_settings: Callable[..., Settings], real_backend: BackendFactory
) -> Iterator[Callable[..., Server]]:
    from app.main import create_app
    from tests.app.app_support import TestClient

    clients: list[TestClient] = []

    def make(*, backend_factory: BackendFactory | None = None, **overrides: Any) -> Server:
        app = create_app(make_settings(**overrides), backend_factory=backend_factory or real_backend)
        client = TestClient(app)
        client.__enter__()
        clients.append(client)
        return Server(app=app, client=client)

    yield make
    for client in reversed(clients):
        client.__exit__(None, None, None)


@pytest.fixture
def server(make_server: Callable[..., Server]) -> Server:
    return make_server()


@pytest.fixture
def client(server: Server) -> TestClient:
    return server.client
