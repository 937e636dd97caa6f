"""A class behind one network address on the Celery path (issue 28): the web process caps each address's waiting
submissions (app.grading.waiting_by_address), counting only learners not yet established (app.trust). Thirty
established learners on one address, here every test client on 127.0.0.1, all get their run queued at once and
graded by a worker, while a flood of fresh cookies from the same address is still refused after four. The site
runs with the default per-address limits and starts its worker only once everything is queued, so what waits
is exactly what the caps let in."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker

from app.identity import LearnerSigner
from app.trust import mark_established
from grader.sandbox import probe
from tests.services.conftest import FAST_RECOVERY, RedisTarget, fresh_database
from tests.services.services_support import CORRECT, PROBLEM_SOURCES, Cluster, submit, wait_for_verdict

pytestmark = [pytest.mark.services, pytest.mark.slow]

logger = logging.getLogger(__name__)

CLASS_SIZE = 30
SECRET_KEY = "classroom-test-secret-key-0123456789"
# The services site's fast recovery, but the per-address limits as a real site has them (their defaults).
CLASSROOM_ENV = {key: value for key, value in FAST_RECOVERY.items()
                 if key not in ("PAPERLAB_ADDRESS_RATE_LIMIT_PER_MINUTE", "PAPERLAB_QUEUE_LIMIT_PER_ADDRESS")}


@pytest.fixture(scope="module")
def classroom(redis_target: RedisTarget, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, str]]:
    """A site of its own (database, Redis key prefix, web server) whose worker the test starts."""
    root = tmp_path_factory.mktemp("classroom")
    for source in PROBLEM_SOURCES:
        shutil.copytree(source, root / "problems" / source.name)
    base = {key: value for key, value in os.environ.items()
            if not key.startswith(("PAPERLAB_", "CELERY_")) and key != "DATABASE_URL"}
    with fresh_database() as database_url:
        env = {
            **base, **CLASSROOM_ENV,
            "PAPERLAB_SECRET_KEY": SECRET_KEY,
            "DATABASE_URL": database_url,
            "PAPERLAB_VAR_DIR": str(root / "var"),
            "PAPERLAB_PROBLEMS_DIR": str(root / "problems"),
            "PAPERLAB_REDIS_KEY_PREFIX": f"{redis_target.prefix}classroom-{uuid.uuid4().hex[:6]}:",
            "CELERY_BROKER_URL": redis_target.url(),
        }
        if not probe().available:
            env["PAPERLAB_UNSAFE_NO_SANDBOX"] = "1"
        cluster = Cluster(web_env=env, worker_env=env, log_dir=root)
        try:
            cluster.start_web()
            cluster.wait_web_ready()
            yield cluster, database_url
        finally:
            cluster.stop()


def enrol(database_url: str, browsers: list[httpx.Client]) -> None:
    """What a course enrolment does: one call per learner marks them established."""
    signer = LearnerSigner(SECRET_KEY)
    engine = create_engine(database_url)
    try:
        with sessionmaker(engine)() as session:
            for browser in browsers:
                browser.get("/")  # the first page view mints the learner cookie
                learner_id = signer.verify(browser.cookies["paperlab_learner"])
                assert learner_id is not None
                mark_established(session=session, learner_id=learner_id, reason="test:enrolled")
    finally:
        engine.dispose()


def submit_together(browsers: list[httpx.Client]) -> list[httpx.Response]:
    start = threading.Barrier(len(browsers))
    responses: dict[int, httpx.Response] = {}

    def press(index: int) -> None:
        start.wait()
        responses[index] = submit(browsers[index], CORRECT)

    threads = [threading.Thread(target=press, args=(index,)) for index in range(len(browsers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [responses[index] for index in range(len(browsers))]


def test_a_class_on_one_address_is_queued_and_graded_while_fresh_cookies_stay_capped(
    classroom: tuple[Cluster, str],
) -> None:
    cluster, database_url = classroom
    class_ = [httpx.Client(base_url=cluster.base_url, timeout=60) for _ in range(CLASS_SIZE)]
    flood = [httpx.Client(base_url=cluster.base_url, timeout=60) for _ in range(6)]
    try:
        enrol(database_url, class_)
        responses = submit_together(class_)
        assert [response.status_code for response in responses] == [202] * CLASS_SIZE, [
            response.text for response in responses if response.status_code != 202]
        fresh = [submit(browser, CORRECT) for browser in flood]  # nothing is graded yet: every one waits
        assert [response.status_code for response in fresh] == [202] * 4 + [429] * 2, [r.text for r in fresh]
        assert "4 submissions from your network address are already waiting" in fresh[-1].json()["detail"]

        cluster.start_worker()
        cluster.wait_workers_ready(1)
        started = time.monotonic()
        waiting = [*zip(class_, responses, strict=True), *zip(flood[:4], fresh[:4], strict=True)]
        verdicts = [wait_for_verdict(browser, response.json()["id"], timeout_s=300) for browser, response in waiting]
        last_wait_s = time.monotonic() - started
        assert [verdict["status"] for verdict in verdicts] == ["done"] * (CLASS_SIZE + 4)
        assert all(verdict["report"]["solved"] for verdict in verdicts)
        logger.info("%d runs queued from one address: the last verdict came %.2f s after one worker was ready",
                    CLASS_SIZE + 4, last_wait_s)
    finally:
        for browser in [*class_, *flood]:
            browser.close()
