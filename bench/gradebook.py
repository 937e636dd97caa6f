"""Benchmark of a course's gradebook on PostgreSQL: 500 learners x 20 problems (two assignments of ten).

    python -m bench.gradebook --database-url postgresql+psycopg://postgres@127.0.0.1/paperlab_bench_gradebook

The database must be empty or a previous run's: its tables are dropped and made again by the migrations. The seed
is deterministic (one random.Random seed): a course of 500 members (480 joined, 20 on the roster only), each
joined learner having tried about 80% of the 20 problems (1-8 attempts) and solved about 70% of those, a tenth of
the solves after the due time, 5% after reading the solution, 10 extensions and 20 manual scores; and 5,000 other
learners with tallies on the same problems, so that the course's filter has something to filter. Rows go in with
COPY. Timed: the gradebook's queries and scoring alone, then through the whole app (the instructor guard, the
course check, the SQL, the scoring, and JSON, the HTML page with its 10,000 cells, or the CSV export), after two
warm-up requests each. Writes bench/results/gradebook.json."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
import uuid
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.courses.gradebook import build_gradebook
from app.courses.models import Course
from app.db import make_engine, make_session_factory
from app.instructor.accounts import add_instructor
from app.main import create_app
from app.settings import Settings
from bench.instructor_stats import IdleBackend, copy_rows, reset

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results" / "gradebook.json"
PASSWORD = "benchmark password 0123"
EMAIL = "bench@example.edu"
PROBLEMS = [f"problem_{n:02d}" for n in range(1, 21)]


def seed(database_url: str, *, members: int, others: int) -> str:
    rng = random.Random(32)
    now = datetime.now(UTC)
    opens, due = now - timedelta(days=20), now - timedelta(days=3)
    course_id, instructor_id = str(uuid.uuid4()), str(uuid.uuid4())
    assignments = [(str(uuid.uuid4()), f"Week {n + 1}", n) for n in range(2)]
    learners, member_rows, tallies, solved, reveals = [], [], [], [], []
    joined = members - 20
    for number in range(members + others):
        learner = str(uuid.uuid4())
        learners.append((learner, opens))
        if number < members:
            member_rows.append((str(uuid.uuid4()), course_id, learner if number < joined else None,
                                f"Learner {number:04d}", f"s-{number:05d}", f"l{number}@uni.example",
                                "code" if number < joined else "roster", now if number < joined else None, opens))
            if number >= joined:
                continue
        for problem in PROBLEMS:
            if rng.random() > 0.8:
                continue
            attempts = rng.randint(1, 8)
            first = opens + timedelta(hours=rng.uniform(0, 300))
            solved_at = None
            if rng.random() < 0.7:
                solved_at = (due + timedelta(hours=rng.uniform(1, 60)) if rng.random() < 0.1
                             else first + timedelta(hours=rng.uniform(0, 5)))
                submission = str(uuid.uuid4())
                solved.append((learner, problem, submission, solved_at))
                if rng.random() < 0.05:
                    reveals.append((learner, problem, 3, solved_at - timedelta(minutes=10)))
            tallies.append((problem, learner, attempts, first, solved_at or first, attempts if solved_at else None,
                            solved_at))
    url = make_url(database_url).set(drivername="postgresql")
    with psycopg.connect(url.render_as_string(hide_password=False)) as connection, connection.cursor() as cursor:
        cursor.execute("INSERT INTO instructors (id, email, password_hash, created_at) VALUES (%s, %s, %s, %s)",
                       (instructor_id, "owner@example.edu", "!", now))
        cursor.execute("INSERT INTO courses (id, title, join_code, time_zone, created_at) VALUES (%s, %s, %s, %s, %s)",
                       (course_id, "Benchmark course", "BENCH234", "UTC", now))
        copy_rows(cursor, "learners", ["id", "created_at"], learners)
        copy_rows(cursor, "course_members", ["id", "course_id", "learner_id", "name", "student_id", "email", "source",
                                         "joined_at", "created_at"], member_rows)
        copy_rows(cursor, "assignments", ["id", "course_id", "title", "position", "opens_at", "due_at", "late_policy",
                                      "penalty_percent", "floor_percent", "created_at"],
              [(a, course_id, title, position, opens, due, "penalty", 10, 50, now)
               for a, title, position in assignments])
        copy_rows(cursor, "assignment_problems", ["assignment_id", "problem", "position"],
              [(assignments[n // 10][0], problem, n % 10) for n, problem in enumerate(PROBLEMS)])
        # The solved rows' submissions: a stand-in row each (the gradebook never reads them).
        copy_rows(cursor, "submissions", ["id", "learner_id", "problem", "code", "status", "solved", "attempts",
                                      "created_at"],
              [(submission, learner, problem, "", "done", True, 1, at) for learner, problem, submission, at in solved])
        copy_rows(cursor, "solved", ["learner_id", "problem", "submission_id", "solved_at"], solved)
        copy_rows(cursor, "problem_learners", ["problem", "learner_id", "attempts", "first_submitted_at",
                                           "last_submitted_at", "attempts_to_solve", "solved_submitted_at"], tallies)
        copy_rows(cursor, "solution_reveals", ["learner_id", "problem", "failed_attempts", "revealed_at"], reveals)
        picked = rng.sample([row for row in member_rows if row[2] is not None], 30)
        copy_rows(cursor, "extensions", ["assignment_id", "member_id", "due_at", "reason", "granted_by", "granted_at"],
              [(assignments[0][0], row[0], due + timedelta(days=2), "illness", EMAIL, now) for row in picked[:10]])
        copy_rows(cursor, "grade_overrides", ["assignment_id", "member_id", "problem", "score", "reason", "author",
                                          "created_at"],
              [(assignments[1][0], row[0], PROBLEMS[10], 75.0, "oral exam", EMAIL, now) for row in picked[10:]])
        cursor.execute("ANALYZE")
    return course_id


def time_function(database_url: str, course_id: str, *, requests: int) -> tuple[list[float], list[float]]:
    """build_gradebook alone, in a session of its own each time (as a request has): wall-clock times, and this
    process's CPU time (which other work on a shared machine inflates much less)."""
    engine = make_engine(database_url)
    factory = make_session_factory(engine)
    times, cpu = [], []
    for _ in range(2 + requests):
        with factory() as session:
            began, began_cpu = time.perf_counter(), time.process_time()
            course = session.get(Course, course_id)
            assert course is not None
            book = build_gradebook(session=session, course=course)
            times.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
    cells = sum(len(result.cells) for row in book.rows for result in row.results)
    print(f"gradebook: {len(book.rows)} learners, {cells:,} cells")  # noqa: T201
    engine.dispose()
    return times[2:], cpu[2:]


def time_requests(database_url: str, course_id: str, *, requests: int) -> dict[str, tuple[list[float], list[float]]]:
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`", category=UserWarning)
    from fastapi.testclient import TestClient

    paths = {"json": f"/api/instructor/courses/{course_id}/gradebook",
             "page": f"/instructor/courses/{course_id}/gradebook",
             "csv": f"/api/instructor/courses/{course_id}/gradebook.csv"}
    found: dict[str, tuple[list[float], list[float]]] = {}
    with tempfile.TemporaryDirectory() as var_dir:
        settings = Settings(_env_file=None, database_url=database_url, var_dir=Path(var_dir),  # type: ignore[call-arg]
                            secret_key="benchmark-secret-key-0123456789")
        app = create_app(settings, backend_factory=IdleBackend)
        with TestClient(app) as client:
            with app.state.paperlab.session_factory() as session:
                instructor = add_instructor(session=session, email=EMAIL, password=PASSWORD)
                session.execute(text(
                    "INSERT INTO course_instructors (course_id, instructor_id, added_at) VALUES (:c, :i, now())"),
                    {"c": course_id, "i": instructor.id})
                session.commit()
            form = client.get("/instructor/login").text
            token = form.split('name="csrf_token" value="')[1].split('"')[0]
            client.post("/instructor/login", data={"csrf_token": token, "email": EMAIL, "password": PASSWORD})
            for name, path in paths.items():
                for _ in range(2):
                    assert client.get(path).status_code == 200
                times, cpu = [], []
                for _ in range(requests):
                    began, began_cpu = time.perf_counter(), time.process_time()
                    response = client.get(path)
                    assert response.status_code == 200, response.text[:500]
                    times.append((time.perf_counter() - began) * 1000)
                    cpu.append((time.process_time() - began_cpu) * 1000)
                found[name] = (times, cpu)
    return found


def summary(measured: tuple[list[float], list[float]]) -> dict[str, float]:
    times, cpu = sorted(measured[0]), measured[1]
    return {"median_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1),
            "max_ms": round(times[-1], 1), "median_cpu_ms": round(statistics.median(cpu), 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database this benchmark may wipe")
    parser.add_argument("--members", type=int, default=500)
    parser.add_argument("--others", type=int, default=5_000)
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    reset(args.database_url)
    began = time.perf_counter()
    course_id = seed(args.database_url, members=args.members, others=args.others)
    print(f"seeded in {time.perf_counter() - began:.1f} s")  # noqa: T201
    results: dict[str, object] = {
        "learners": args.members, "problems": len(PROBLEMS), "other_learners": args.others,
        "load_average_1min": round(os.getloadavg()[0], 1),
        "build_gradebook": summary(time_function(args.database_url, course_id, requests=args.requests))}
    for name, measured in time_requests(args.database_url, course_id, requests=args.requests).items():
        results[f"GET {name}"] = summary(measured)
    for name, value in results.items():
        print(f"{name}: {value}")  # noqa: T201
    RESULTS.write_text(json.dumps({"when": datetime.now(UTC).isoformat(timespec="seconds"), **results}, indent=2)
                       + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
