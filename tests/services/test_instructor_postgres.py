"""The instructor side on PostgreSQL: the same gradings as tests/app/test_instructor_dashboard.py, counted by
the PostgreSQL spelling of the tallies' upserts, read back over HTTP. Point PAPERLAB_TEST_POSTGRES_URL at an
admin URL (see conftest.py); each session gets a database of its own."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.grading.inprocess import InProcessBackend
from app.main import create_app
from app.settings import Settings
from app.state import BackendContext
from grader.pool import WorkerPool
from grader.sandbox import probe
from tests.app.app_support import CORRECT, PROBLEMS, WRONG, TestClient, run
from tests.app.instructor_support import csrf_from, make_instructor, sign_in
from tests.services.conftest import fresh_database

pytestmark = [pytest.mark.services]


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    with WorkerPool(size=1, unsafe=not probe().available) as shared:
        yield shared


@pytest.fixture(scope="module")
def own_postgres_url() -> Iterator[str]:
    """A database of this module's own: the counts below must not include the other services tests' gradings."""
    with fresh_database() as url:
        yield url


@pytest.fixture(scope="module")
def make_app(own_postgres_url: str, pool: WorkerPool, tmp_path_factory: pytest.TempPathFactory) -> Callable[[], Any]:
    """Apps on the session's PostgreSQL database and one folder of problems (a later app loads its changes)."""
    root = tmp_path_factory.mktemp("instructor-pg")
    shutil.copytree(PROBLEMS / "add_one", root / "problems" / "add_one")

    def backend(context: BackendContext) -> InProcessBackend:
        return InProcessBackend(session_factory=context.session_factory, problems=context.catalog,
                                bus=context.bus, concurrency=1, queue_limit=10, pool_factory=lambda: _Shared(pool))

    def make() -> Any:
        settings = Settings(_env_file=None, database_url=own_postgres_url, var_dir=root / "var",
                            problems_dir=root / "problems", secret_key="services-test-secret-key-0123456789",
                            celery_broker_url=None)
        return create_app(settings, backend_factory=backend)

    make.problems = root / "problems"  # type: ignore[attr-defined]
    return make


@pytest.fixture(scope="module")
def site(make_app: Callable[[], Any]) -> Iterator[Any]:
    app = make_app()
    with TestClient(app) as client:
        make_instructor(app)
        ada, bob = TestClient(app), TestClient(app)
        client.learners = {"ada": ada, "bob": bob}
        client.attempts = {}
        for name, learner, code in [("ada", ada, WRONG), ("ada", ada, CORRECT), ("bob", bob, WRONG),
                                    ("bob", bob, WRONG)]:
            verdict = run(learner, code)
            assert verdict["status"] == "done"
            client.attempts[name] = verdict["id"]
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




def test_export_on_postgresql(site: Any) -> None:
    response = site.get("/api/instructor/export.csv?problem=add_one")
    lines = response.content.decode("utf-8-sig").splitlines()
    assert lines[0].startswith("learner_id,display_name") and len(lines) == 3


def test_a_report_and_its_reply_on_postgresql(site: Any) -> None:
    bob, attempt = site.learners["bob"], site.attempts["bob"]
    assert bob.post(f"/api/submissions/{attempt}/check-reports",
                    json={"check_id": "add_one.hand_example", "text": "unclear"}).status_code == 201
    report = site.get("/api/instructor/reports").json()[0]
    assert report["failed_attempts"] == 3 and report["attempts"] == 4
    name, token = csrf_from(site.get("/instructor/reports").text)
    site.post(f"/instructor/reports/{report['id']}/resolve", data={name: token, "reply": "see the hint"})
    assert bob.get(f"/api/submissions/{attempt}/check-reports").json()[0]["reply"] == "see the hint"


def test_regrade_on_postgresql(site: Any, make_app: Callable[[], Any]) -> None:
    """Last: it changes the problem."""
    checks = make_app.problems / "add_one" / "checks.py"  # type: ignore[attr-defined]
    checks.write_text(checks.read_text() + "\n# a new battery\n")
    with TestClient(make_app()) as restarted:
        sign_in(restarted)
        name, token = csrf_from(restarted.get("/instructor").text)
        restarted.post("/instructor/regrade", data={name: token})
        deadline = time.monotonic() + 60
        while (state := restarted.get("/api/instructor/regrades").json())["done"] < 2:
            assert time.monotonic() < deadline, state
            time.sleep(0.1)
        ada = TestClient(restarted.app, cookies=site.learners["ada"].cookies)
        page = ada.get(f"/submissions/{site.attempts['ada']}").text
        assert "Re-graded after the problem changed: 3/3 -> 3/3." in page
        restarted.post("/instructor/regrade", data={name: token})
        assert restarted.get("/api/instructor/regrades").json() == {"pending": 0, "queued": 0, "done": 2}
