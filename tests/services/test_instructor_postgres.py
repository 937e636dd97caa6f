"""The instructor side on PostgreSQL: the same gradings as tests/app/test_instructor_dashboard.py, counted by
the PostgreSQL spelling of the tallies' upserts, read back over HTTP. Point PAPERLAB_TEST_POSTGRES_URL at an
admin URL (see conftest.py); each session gets a database of its own."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from app.grading.inprocess import InProcessBackend
from app.main import create_app
from app.settings import Settings
from app.state import BackendContext
from grader.pool import WorkerPool
from grader.sandbox import probe
from tests.app.app_support import CORRECT, PROBLEMS, WRONG, TestClient, run
from tests.app.instructor_support import make_instructor, sign_in

pytestmark = [pytest.mark.services]


@pytest.fixture(scope="module")
def site(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("instructor-pg")
    shutil.copytree(PROBLEMS / "add_one", root / "problems" / "add_one")
    settings = Settings(_env_file=None, database_url=postgres_url, var_dir=root / "var",  # type: ignore[call-arg]
                        problems_dir=root / "problems", secret_key="services-test-secret-key-0123456789",
                        celery_broker_url=None)
    with WorkerPool(size=1, unsafe=not probe().available) as pool:

        def backend(context: BackendContext) -> InProcessBackend:
            return InProcessBackend(session_factory=context.session_factory, problems=context.catalog,
                                    bus=context.bus, concurrency=1, queue_limit=10, pool_factory=lambda: _Shared(pool))

        app = create_app(settings, backend_factory=backend)
        with TestClient(app) as client:
            make_instructor(app)
            ada, bob = TestClient(app), TestClient(app)
            for learner, code in [(ada, WRONG), (ada, CORRECT), (bob, WRONG), (bob, WRONG)]:
                assert run(learner, code)["status"] == "done"
            sign_in(client)
            yield client


class _Shared:
    def __init__(self, pool: WorkerPool) -> None:
        self.pool, self.sandbox = pool, pool.sandbox

    def start(self) -> None: ...

    def close(self) -> None: ...

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pool, name)


def test_stats_on_postgresql(site: Any) -> None:
    stats = site.get("/api/instructor/problems/add_one/stats").json()
    assert (stats["learners_tried"], stats["learners_solved"], stats["attempts"]) == (2, 1, 4)
    assert stats["median_attempts_to_solve"] == 2.0
    worst = stats["checks"][0]
    assert (worst["check_id"], worst["failed_attempts"], worst["learners_failed"]) == ("add_one.hand_example", 3, 2)
    assert {row["check_id"]: row["attempts"] for row in stats["first_failing"]} == {"add_one.hand_example": 3,
                                                                                      None: 1}


def test_learners_on_postgresql(site: Any) -> None:
    rows = site.get("/api/instructor/learners").json()
    assert sorted((row["attempts"], row["problems_solved"]) for row in rows) == [(2, 0), (2, 1)]


def test_a_learner_is_refused_on_postgresql(site: Any) -> None:
    learner = TestClient(site.app)
    learner.get("/")
    assert learner.get("/api/instructor/problems").status_code == 403


