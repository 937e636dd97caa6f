"""Grading across processes on real services: the web server (`python -m app serve`) and two Celery workers
(`python -m app worker`) on PostgreSQL and Redis. Nothing is mocked: a worker is killed with SIGKILL, the web
server is killed and restarted, and the broker is cut off at the TCP level."""

from __future__ import annotations

import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import psycopg
import pytest

from app.grading.celery_backend import make_celery_app
from app.settings import Settings
from tests.services.services_support import (
    CORRECT,
    PROBLEM_SOURCES,
    SLOW_CORRECT,
    WRONG,
    Cluster,
    RedisRelay,
    metric_values,
    parse_sse,
    submit,
    wait_for_verdict,
)

pytestmark = [pytest.mark.services, pytest.mark.slow]

ADD_ONE_CHECKS = ["add_one.hand_example", "add_one.inputs_unchanged", "add_one.experiment"]


def learner(cluster: Cluster) -> httpx.Client:
    """A browser of its own: its own cookie, so its own learner."""
    return httpx.Client(base_url=cluster.base_url, timeout=30)


def check_statuses(body: dict[str, Any]) -> dict[str, str]:
    return {check["id"]: check["status"] for check in body["report"]["checks"]}


def test_correct_and_wrong_solutions_get_their_verdicts_with_live_events(cluster: Cluster) -> None:
    with learner(cluster) as alice, learner(cluster) as bob:
        right = submit(alice, CORRECT)
        wrong = submit(bob, WRONG)
        assert right.status_code == 202 and wrong.status_code == 202, (right.text, wrong.text)
        solved = wait_for_verdict(alice, right.json()["id"])
        failed = wait_for_verdict(bob, wrong.json()["id"])
    assert solved["status"] == "done" and solved["report"]["solved"] is True
    assert check_statuses(solved) == dict.fromkeys(ADD_ONE_CHECKS, "passed")
    assert failed["status"] == "done" and failed["report"]["solved"] is False
    assert check_statuses(failed)["add_one.hand_example"] == "failed"

    # Live events from a worker process, through Redis, to this server's event stream: the first check
    # arrives while the second (which sleeps 1.5 s in the learner's code) is still running.
    with learner(cluster) as carol:
        created = submit(carol, SLOW_CORRECT, slug="slow_add")
        assert created.status_code == 202, created.text
        events: list[tuple[float, str, Any]] = []
        with carol.stream("GET", f"/api/submissions/{created.json()['id']}/events") as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            for kind, data in parse_sse(response.iter_lines()):
                events.append((time.monotonic(), kind, data))
    kinds = [kind for _, kind, _ in events]
    assert kinds[0] == "status" and kinds[-1] == "report", kinds
    checks = [data for _, kind, data in events if kind == "check"]
    assert [c["check"]["id"] for c in checks] == ["slow_add.values", "slow_add.wait"]
    assert [c["done"] for c in checks] == [1, 2] and all(c["total"] == 2 for c in checks)
    first_check_at = next(at for at, kind, _ in events if kind == "check")
    assert events[-1][0] - first_check_at > 1.0, "the first check was not delivered while grading went on"
    report = events[-1][2]
    assert report["status"] == "done" and report["report"]["solved"] is True

    deadline = time.monotonic() + 10  # /metrics caches its numbers for a few seconds
    while (metrics := metric_values(cluster.base_url))["paperlab_submission_latency_seconds_count"] < 3:
        assert time.monotonic() < deadline, metrics
        time.sleep(0.5)
    assert metrics['paperlab_grading_backend{backend="celery"}'] == 1
    assert metrics["paperlab_broker_up"] == 1
    assert metrics["paperlab_submission_latency_seconds_count"] >= 3
    assert metrics["paperlab_events_published_total"] >= 3 * 2
    assert sum(v for k, v in metrics.items() if k.startswith("paperlab_grading_workers{")) >= 2


def test_200_submissions_from_20_learners_get_exactly_one_report_each(
    cluster: Cluster, database: psycopg.Connection
) -> None:
    per_learner = 10

    def one_learner(number: int) -> list[tuple[str, bool]]:
        results = []
        with learner(cluster) as client:
            for attempt in range(per_learner):
                correct = (number + attempt) % 2 == 0
                response = submit(client, CORRECT if correct else WRONG)
                assert response.status_code == 202, response.text
                body = wait_for_verdict(client, response.json()["id"], timeout_s=120)
                assert body["status"] == "done", body
                assert body["report"]["solved"] is correct
                results.append((body["id"], correct))
        return results

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=20) as pool:
        results = [item for batch in pool.map(one_learner, range(20)) for item in batch]
    elapsed = time.monotonic() - started
    ids = [submission_id for submission_id, _ in results]
    assert len(ids) == len(set(ids)) == 200

    rows = database.execute(
        "SELECT id, status, solved, attempts, report IS NOT NULL, checks_total FROM submissions WHERE id = ANY(%s)",
        (ids,),
    ).fetchall()
    assert len(rows) == 200, "a submission is missing from the database"
    expected = dict(results)
    for submission_id, status, solved, attempts, has_report, checks_total in rows:
        assert status == "done" and has_report and checks_total == len(ADD_ONE_CHECKS)
        assert solved is expected[submission_id]
        assert attempts == 1, f"{submission_id} was graded {attempts} times"
    print(f"200 submissions graded in {elapsed:.1f} s")  # noqa: T201 - shown with -s, for the record


def _grading_worker(cluster: Cluster, submission_id: str, settings: Settings) -> int:
    """The pid of the worker whose grading process holds the submission (Celery's own inspect)."""
    app = make_celery_app(settings)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            active = app.control.inspect(timeout=1.0).active() or {}
            for node, tasks in active.items():
                if any(task.get("args") == [submission_id] for task in tasks):
                    return int(node.split("@")[0].rsplit("-", 1)[1])
        raise AssertionError(f"no worker reports {submission_id} as active: {active}")
    finally:
        app.close()


def test_a_submission_survives_its_worker_being_killed_mid_grade(
    cluster: Cluster, database: psycopg.Connection
) -> None:
    env = cluster.worker_env
    settings = Settings(
        _env_file=None,
        celery_broker_url=env["CELERY_BROKER_URL"],
        redis_key_prefix=env["PAPERLAB_REDIS_KEY_PREFIX"],
        celery_visibility_timeout_s=float(env["PAPERLAB_CELERY_VISIBILITY_TIMEOUT_S"]),
    )
    with learner(cluster) as client:
        created = submit(client, SLOW_CORRECT, slug="slow_add")
        assert created.status_code == 202, created.text
        submission_id = created.json()["id"]
        pid = _grading_worker(cluster, submission_id, settings)
        victim = next(worker for worker in cluster.workers if worker.pid == pid)
        assert client.get(f"/api/submissions/{submission_id}").json()["status"] == "running"
        victim.kill(signal.SIGKILL)  # the worker and its grading process, mid-grade, without a chance to ack
        try:
            body = wait_for_verdict(client, submission_id, timeout_s=60)
        finally:
            cluster.start_worker()  # the site gets its second worker back for the tests that follow
    assert body["status"] == "done" and body["report"]["solved"] is True, body
    attempts = database.execute("SELECT attempts FROM submissions WHERE id = %s", (submission_id,)).fetchone()
    assert attempts == (2,), "graded once by the killed worker, once by the other"
    assert all(check["status"] == "passed" for check in body["report"]["checks"])


def test_restarting_the_web_server_mid_run_loses_no_submission(cluster: Cluster, database: psycopg.Connection) -> None:
    accepted: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def keep_submitting() -> None:
        with learner(cluster) as client:
            while not stop.is_set():
                try:
                    response = submit(client, CORRECT)
                except httpx.TransportError:
                    time.sleep(0.2)  # the server is down; the browser would retry
                    continue
                if response.status_code == 429:  # an earlier run of ours was accepted but its answer was lost
                    attempts = client.get("/api/problems/add_one/submissions").json()
                    submission_id = attempts[0]["id"]
                elif response.status_code == 202:
                    submission_id = response.json()["id"]
                else:
                    raise AssertionError(f"{response.status_code}: {response.text}")
                with lock:
                    if submission_id not in accepted:
                        accepted.append(submission_id)
                wait_for_verdict(client, submission_id, timeout_s=90)

    threads = [threading.Thread(target=keep_submitting) for _ in range(6)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(2)
        assert cluster.web is not None
        cluster.web.kill(signal.SIGKILL)
        # While it is down: a submission stored by a server that died before it could enqueue it.
        learner_id, orphan_id = _store_queued_submission(database)
        time.sleep(1)
        cluster.start_web()
        cluster.wait_web_ready()
        time.sleep(3)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=120)
    assert accepted, "no submission went through"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        rows = database.execute(
            "SELECT id, status FROM submissions WHERE id = ANY(%s)", ([*accepted, orphan_id],)
        ).fetchall()
        if len(rows) == len(accepted) + 1 and all(status == "done" for _, status in rows):
            break
        time.sleep(0.5)
    assert len(rows) == len(accepted) + 1
    assert {status for _, status in rows} == {"done"}, cluster.logs()
    assert len(accepted) >= 6


def _store_queued_submission(database: psycopg.Connection) -> tuple[str, str]:
    import uuid

    learner_id, submission_id = str(uuid.uuid4()), str(uuid.uuid4())
    database.execute("INSERT INTO learners (id, created_at) VALUES (%s, now())", (learner_id,))
    database.execute(
        "INSERT INTO submissions (id, learner_id, problem, code, status, solved, attempts, created_at) "
        "VALUES (%s, %s, 'add_one', %s, 'queued', false, 0, now())",
        (submission_id, learner_id, CORRECT),
    )
    return learner_id, submission_id


def test_broker_down_at_submit_answers_503_and_grades_the_kept_submission_later(
    cluster: Cluster, relay: RedisRelay
) -> None:
    with learner(cluster) as client:
        relay.stop()
        response = submit(client, CORRECT)
        assert response.status_code == 503, response.text
        assert "saved" in response.json()["detail"] and "graded" in response.json()["detail"]
        assert int(response.headers["Retry-After"]) > 0
        attempts = client.get("/api/problems/add_one/submissions").json()
        assert len(attempts) == 1 and attempts[0]["status"] == "queued"
        kept_id = attempts[0]["id"]
        time.sleep(1.5)
        assert client.get(f"/api/submissions/{kept_id}").json()["status"] == "queued"
        relay.start()
        body = wait_for_verdict(client, kept_id, timeout_s=30)
        assert body["status"] == "done" and body["report"]["solved"] is True
        again = submit(client, WRONG)
        assert again.status_code == 202, again.text
        assert wait_for_verdict(client, again.json()["id"])["report"]["solved"] is False


WHOLE_LOG = 100_000  # lines: more than any test's worker writes


def test_every_grading_process_prepares_its_catalogue_after_it_starts(cluster: Cluster) -> None:
    """grader/prepare.py in a Celery worker: the web server's /healthz cannot say (None), each worker's log does."""
    assert httpx.get(f"{cluster.base_url}/healthz", timeout=10).json()["problems_prepared"] is None
    running = [worker for worker in cluster.workers if worker.popen is not None and worker.popen.poll() is None]
    assert running
    deadline = time.monotonic() + 120
    # Each log is one worker process's, from its start: the line is looked for in all of it, since the gradings of
    # the tests before this one may have written hundreds of lines after it.
    while not all("prepared " in worker.log_tail(WHOLE_LOG) for worker in running):
        assert time.monotonic() < deadline, [worker.log_tail() for worker in running]
        time.sleep(0.5)
    assert all(f"prepared {len(PROBLEM_SOURCES)} problem(s)" in worker.log_tail(WHOLE_LOG) for worker in running)
    # each worker graded every reference on its own pool while it prepared, and every one passed
    assert not any("does not pass its own checks" in worker.log_tail(WHOLE_LOG) for worker in running)
