"""Benchmark of GET /api/instructor/problems/{slug}/stats on PostgreSQL with 100,000 graded submissions.

    python -m bench.instructor_stats --database-url postgresql+psycopg://postgres@127.0.0.1/paperlab_bench

The database must be empty or a previous run's: its tables are dropped and made again by the migrations. The
seed is deterministic (one random.Random seed): 2,000 learners x 50 MoCo attempts, each attempt failing a few
of the battery's checks (checks early in the battery more often), half of the failures of every third check
diagnosed as one of two known mistakes, 60% of learners solving, and the tallies and roll-ups that
app.instructor.records would have kept. Rows go in with COPY (minutes with INSERTs). The request is timed
through the whole app (routing, the instructor guard's session look-up, the SQL, JSON), after three warm-up
requests; the statistics' queries are also timed alone."""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
import warnings
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.db import make_engine
from app.grading.base import BackendHealth, Submitter
from app.instructor.accounts import add_instructor
from app.instructor.battery import battery_hash
from app.main import create_app
from app.migrate import upgrade
from app.settings import Settings
from app.state import BackendContext
from grader import load_problem

REPO = Path(__file__).resolve().parent.parent
PASSWORD = "benchmark password 0123"
TARGET_MS = 200.0


class IdleBackend:
    """Grades nothing: the benchmark reads, and a pool of sandboxes would only take memory."""

    def __init__(self, context: BackendContext) -> None:
        del context

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def submit(self, submission_id: str, *, submitter: Submitter) -> None:
        raise RuntimeError("the benchmark submits nothing")

    def stop_grading(self, submission_id: str) -> None:
        raise RuntimeError("the benchmark grades nothing")

    def health(self) -> BackendHealth:
        return BackendHealth(backend="idle", available=True, sandbox="none", queue_depth=0, queue_limit=None)


def copy_rows(cursor: psycopg.Cursor, table: str, columns: list[str], rows: Sequence[tuple[object, ...]]) -> None:
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def seed(database_url: str, *, learners: int, attempts_each: int) -> int:
    problem = load_problem(REPO / "problems" / "moco")
    checks = [check.id for check in problem.checks]
    battery = battery_hash(problem)
    mistakes = [source.description for source in problem.mutant_sources()][:12]
    rng = random.Random(20261201)
    # A known mistake shows on the few checks its wrong value reaches: here every third check knows one or two.
    known_for = {i: [mistakes[i % len(mistakes)], mistakes[(7 * i) % len(mistakes)]] for i in range(0, len(checks), 3)}
    start = datetime(2026, 11, 1, tzinfo=UTC)
    url = make_url(database_url).set(drivername="postgresql")
    submissions, verdicts, solved, learner_rows, problem_learners = [], [], [], [], []
    tallies: dict[tuple[str, int], list[int]] = {}
    rollups = [[0, 0, 0, 0] for _ in checks]  # attempts, failures, learners, learners failed
    first: dict[str, int] = {}
    diagnosis_tallies: dict[tuple[int, str, str], int] = {}
    for _ in range(learners):
        learner = str(uuid.uuid4())
        learner_rows.append((learner, start))
        solves = rng.random() < 0.6
        at = first_at = start + timedelta(minutes=rng.randrange(0, 20_000))
        for number in range(attempts_each):
            submission = str(uuid.uuid4())
            at += timedelta(seconds=rng.randrange(20, 600))
            last = solves and number == attempts_each - 1
            # Checks early in the battery fail more often: a learner fixes the basics first.
            failing = set() if last else {min(int(rng.expovariate(0.15)), len(checks) - 1)
                                          for _ in range(rng.randint(1, 5))}
            passed = len(checks) - len(failing)
            submissions.append((submission, learner, "moco", "def moco_loss(): ...", "done", None, last, passed,
                                len(checks), 1, at, at, at + timedelta(seconds=1)))
            first_failing = checks[min(failing)] if failing else None
            verdicts.append((submission, learner, "moco", last, passed, len(checks), first_failing, False, battery,
                             "0.1.0", at, at))
            first[first_failing or ""] = first.get(first_failing or "", 0) + 1
            for index in range(len(checks)):
                tally = tallies.setdefault((learner, index), [0, 0])
                failure = index in failing
                tally[0] += 1
                tally[1] += failure
                rollups[index][0] += 1
                rollups[index][1] += failure
                rollups[index][2] += tally[0] == 1
                rollups[index][3] += failure and tally[1] == 1
                if failure and index in known_for and rng.random() < 0.5:
                    key = (index, rng.choice(known_for[index]), learner)
                    diagnosis_tallies[key] = diagnosis_tallies.get(key, 0) + 1
            if last:
                solved.append((learner, "moco", submission, at + timedelta(seconds=1)))
        problem_learners.append(("moco", learner, attempts_each, first_at, at, attempts_each if solves else None,
                                 at if solves else None))
    diagnosis_rollups: dict[tuple[int, str], list[int]] = {}
    for (index, diagnosis, _), times in diagnosis_tallies.items():
        rollup = diagnosis_rollups.setdefault((index, diagnosis), [0, 0])
        rollup[0] += times
        rollup[1] += 1
    with psycopg.connect(url.render_as_string(hide_password=False)) as connection, connection.cursor() as cursor:
        copy_rows(cursor, "learners", ["id", "created_at"], learner_rows)
        copy_rows(cursor, "submissions", ["id", "learner_id", "problem", "code", "status", "report", "solved",
                                      "checks_passed", "checks_total", "attempts", "created_at", "started_at",
                                      "finished_at"], submissions)
        copy_rows(cursor, "verdicts", ["submission_id", "learner_id", "problem", "solved", "passed", "total",
                                   "first_failing_check", "regrade", "battery", "engine_version", "submitted_at",
                                   "graded_at"], verdicts)
        copy_rows(cursor, "solved", ["learner_id", "problem", "submission_id", "solved_at"], solved)
        copy_rows(cursor, "problem_learners", ["problem", "learner_id", "attempts", "first_submitted_at",
                                           "last_submitted_at", "attempts_to_solve", "solved_submitted_at"],
              problem_learners)
        copy_rows(cursor, "check_tallies", ["problem", "check_id", "learner_id", "attempts", "failures"],
              [("moco", checks[i], learner, n, f) for (learner, i), (n, f) in tallies.items()])
        copy_rows(cursor, "check_rollups", ["problem", "check_id", "position", "attempts", "failures", "learners",
                                        "learners_failed"],
              [("moco", check, i, *rollups[i]) for i, check in enumerate(checks)])
        copy_rows(cursor, "first_failure_rollups", ["problem", "check_id", "attempts"],
              [("moco", check, n) for check, n in first.items()])
        copy_rows(cursor, "diagnosis_tallies", ["problem", "check_id", "diagnosis", "learner_id", "times"],
              [("moco", checks[i], d, learner, n) for (i, d, learner), n in diagnosis_tallies.items()])
        copy_rows(cursor, "diagnosis_rollups", ["problem", "check_id", "diagnosis", "times", "learners"],
              [("moco", checks[i], d, n, people) for (i, d), (n, people) in diagnosis_rollups.items()])
        cursor.execute("ANALYZE")
    return len(submissions)


def reset(database_url: str) -> None:
    engine = make_engine(database_url)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    upgrade(engine)
    engine.dispose()


def time_queries(database_url: str, *, requests: int) -> list[float]:
    """The statistics' SQL (and the pydantic models), without HTTP or the instructor guard."""
    from app.db import make_session_factory
    from app.instructor.stats import problem_stats

    engine = make_engine(database_url)
    times = []
    with make_session_factory(engine)() as session:
        for _ in range(3 + requests):
            began = time.perf_counter()
            problem_stats(session=session, problem="moco")
            times.append((time.perf_counter() - began) * 1000)
    engine.dispose()
    return times[3:]


def time_endpoint(database_url: str, *, requests: int) -> list[float]:
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`", category=UserWarning)
    from fastapi.testclient import TestClient

    with tempfile.TemporaryDirectory() as var_dir:
        settings = Settings(_env_file=None, database_url=database_url, var_dir=Path(var_dir),  # type: ignore[call-arg]
                            secret_key="benchmark-secret-key-0123456789")
        app = create_app(settings, backend_factory=IdleBackend)
        with TestClient(app) as client:
            with app.state.paperlab.session_factory() as session:
                add_instructor(session=session, email="bench@example.edu", password=PASSWORD)
            form = client.get("/instructor/login").text
            token = form.split('name="csrf_token" value="')[1].split('"')[0]
            client.post("/instructor/login", data={"csrf_token": token, "email": "bench@example.edu",
                                                   "password": PASSWORD})
            for _ in range(3):
                assert client.get("/api/instructor/problems/moco/stats").status_code == 200
            times = []
            for _ in range(requests):
                began = time.perf_counter()
                response = client.get("/api/instructor/problems/moco/stats")
                times.append((time.perf_counter() - began) * 1000)
                assert response.status_code == 200, response.text
            body = response.json()
            print(f"stats: {body['attempts']:,} attempts, {body['learners_tried']:,} learners, "  # noqa: T201
                  f"{body['learners_solved']:,} solved, {len(body['checks'])} checks, "
                  f"{len(body['diagnoses'])} diagnoses")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database this benchmark may wipe")
    parser.add_argument("--learners", type=int, default=2_000)
    parser.add_argument("--attempts-each", type=int, default=50)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    reset(args.database_url)
    began = time.perf_counter()
    count = seed(args.database_url, learners=args.learners, attempts_each=args.attempts_each)
    print(f"seeded {count:,} submissions in {time.perf_counter() - began:.1f} s")  # noqa: T201
    queries = sorted(time_queries(args.database_url, requests=args.requests))
    print(f"problem_stats() alone: median {statistics.median(queries):.1f} ms, "  # noqa: T201
          f"p95 {queries[int(0.95 * (len(queries) - 1))]:.1f} ms")
    times = sorted(time_endpoint(args.database_url, requests=args.requests))
    median, p95 = statistics.median(times), times[int(0.95 * (len(times) - 1))]
    print(f"GET /api/instructor/problems/moco/stats: median {median:.1f} ms, p95 {p95:.1f} ms, "  # noqa: T201
          f"max {times[-1]:.1f} ms over {len(times)} requests (target < {TARGET_MS:.0f} ms)")
    return 0 if median < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
