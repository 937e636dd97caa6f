"""Courses on PostgreSQL: migration 0006_courses builds exactly what the models describe and goes down again, and a
course's gradebook (late policy, extension, override) reads the same there as on SQLite, over HTTP."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.db import make_engine
from app.grading.inprocess import InProcessBackend
from app.main import create_app
from app.migrate import alembic_config, upgrade
from app.settings import Settings
from app.state import BackendContext
from app.tables import Base
from grader.pool import WorkerPool
from grader.sandbox import probe
from tests.app.app_support import CORRECT, TestClient, run
from tests.app.course_support import Teacher, cell, join, local, two_problems
from tests.services.conftest import fresh_database

pytestmark = [pytest.mark.services]

COURSE_TABLES = {"courses", "course_instructors", "assignments", "assignment_problems", "course_members",
                 "extensions", "grade_overrides", "course_audit", "learner_accounts", "lti_platforms",
                 "lti_deployments", "lti_keys", "lti_states", "lti_launches", "lti_users", "lti_contexts",
                 "lti_resource_links", "lti_grade_targets", "lti_scores"}


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with fresh_database() as url:
        yield url


def test_0006_courses_matches_the_models_and_goes_down_and_up_again(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    try:
        upgrade(engine)
        with engine.connect() as connection:
            assert COURSE_TABLES <= set(inspect(connection).get_table_names())
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
        config = alembic_config()
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0004_api_tokens")
        with engine.connect() as connection:
            assert not COURSE_TABLES & set(inspect(connection).get_table_names())
        upgrade(engine)
        with engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    finally:
        engine.dispose()


class _Shared:
    def __init__(self, pool: WorkerPool) -> None:
        self.pool, self.sandbox = pool, pool.sandbox

    def start(self) -> None: ...

    def close(self) -> None: ...

    def __getattr__(self, name: str) -> object:
        return getattr(self.pool, name)


def test_a_late_solve_an_extension_and_an_override_read_the_same_on_postgresql(postgres_url: str,
                                                                                 tmp_path: Path) -> None:
    problems = two_problems(tmp_path / "problems")
    with WorkerPool(size=1, unsafe=not probe().available) as pool:
        def backend(context: BackendContext) -> InProcessBackend:
            return InProcessBackend(session_factory=context.session_factory, problems=context.catalog,
                                    bus=context.bus, concurrency=1, queue_limit=10, pool_factory=lambda: _Shared(pool))

        settings = Settings(_env_file=None, database_url=postgres_url, var_dir=tmp_path / "var",
                            problems_dir=problems, secret_key="services-test-secret-key-0123456789",
                            celery_broker_url=None)
        app = create_app(settings, backend_factory=backend)
        with TestClient(app):
            teacher = Teacher(app)
            course = teacher.create_course()
            now = datetime.now(UTC)
            assignment = teacher.assignment(course, problems=["add_one", "add_one_b"], opens=now - timedelta(days=5),
                                            due=now - timedelta(hours=30))
            grace = TestClient(app)
            assert join(grace, teacher.join_code(course), name="Grace").status_code == 303
            assert run(grace, CORRECT)["report"]["solved"]
            late = cell(teacher.gradebook(course), "Grace", "add_one")
            assert (late["late"], late["days_late"], late["score"]) == (True, 2, pytest.approx(0.8))
            member = teacher.gradebook(course)["rows"][0]["member"]["id"]
            page = f"/instructor/courses/{course}/assignments/{assignment}"
            teacher.post(f"{page}/extensions", page, member_id=member, due_at=local(now + timedelta(days=1)),
                         reason="Illness")
            override = f"/instructor/courses/{course}/gradebook/{assignment}/{member}/add_one_b"
            teacher.post(override, override, action="set", score="60", reason="Oral exam")
            book = teacher.gradebook(course)
            assert cell(book, "Grace", "add_one")["score"] == 1.0
            assert cell(book, "Grace", "add_one_b")["score"] == 0.6
            assert book["rows"][0]["results"][0]["points"] == 1.6
            grace.close()
            teacher.client.close()
    shutil.rmtree(tmp_path / "var", ignore_errors=True)
