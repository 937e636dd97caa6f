"""Migration 0003 back-fills the dashboard's rows from the reports stored before it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

from app.db import make_engine, make_session_factory
from app.instructor.stats import problem_stats
from app.migrate import upgrade


def report(statuses: list[str]) -> str:
    checks = [{"id": f"f.c{n}", "title": "t", "group": "f", "required": True, "status": status}
              for n, status in enumerate(statuses)]
    return json.dumps({"problem": "p", "solved": all(s == "passed" for s in statuses), "status": "failed",
                       "checks": checks})


def test_reports_stored_before_0003_are_counted(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    upgrade(engine, "0001")
    start = datetime(2026, 1, 1, tzinfo=UTC)
    attempts = [("a", ["failed", "passed"]), ("a", ["passed", "passed"]), ("b", ["failed", "failed"])]
    with engine.begin() as connection:
        for learner in ("a", "b"):
            connection.execute(text("INSERT INTO learners (id, created_at) VALUES (:id, :at)"),
                               {"id": learner, "at": start})
        for number, (learner, statuses) in enumerate(attempts):
            at = start + timedelta(minutes=number)
            connection.execute(text(
                "INSERT INTO submissions (id, learner_id, problem, code, status, report, solved, attempts, "
                "created_at, finished_at) VALUES (:id, :learner, 'p', 'x', 'done', :report, :solved, 1, :at, :at)"),
                {"id": f"s{number}", "learner": learner, "report": report(statuses),
                 "solved": all(s == "passed" for s in statuses), "at": at})
        connection.execute(text("INSERT INTO solved VALUES ('a', 'p', 's1', :at)"), {"at": start})
    upgrade(engine)
    with make_session_factory(engine)() as session:
        stats = problem_stats(session=session, problem="p")
    engine.dispose()
    assert (stats.learners_tried, stats.learners_solved, stats.attempts) == (2, 1, 3)
    assert stats.median_attempts_to_solve == 2.0
    first = {check.check_id: (check.failed_attempts, check.attempts, check.learners_failed) for check in stats.checks}
    assert first == {"f.c0": (2, 3, 2), "f.c1": (1, 3, 1)}
    assert {row.check_id: row.attempts for row in stats.first_failing} == {"f.c0": 2, None: 1}
