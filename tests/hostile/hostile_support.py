"""Small helpers for the hostile tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

import os
from pathlib import Path

from grader.limits import Limits
from grader.report import Report

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
REPO = Path(__file__).resolve().parents[2]
ADDER_DIR = REPO / "tests" / "fixtures" / "problems" / "adder"
HOST_SECRET_NAME = "HOSTILE_TEST_HOST_SECRET"  # tests/conftest.py sets it before a pool starts


def submission(name: str) -> str:
    return (SUBMISSIONS / f"{name}.py").read_text()


def messages(report: Report) -> dict[str, str]:
    return {check.id: check.message for check in report.checks}


def slowdown() -> float:
    """How many times slower than a quiet machine this one runs a process now (its load per core, at least 1,
    at most the wall-clock ceiling). Limits count a call's own time, not its wait for a CPU, so on a busy machine
    a loop that ends at its 3 s limit takes longer by the wall clock; a bound in wall time scales alike."""
    per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    return min(max(1.0, per_core), Limits().wall_ceiling_factor)


def assert_unsolved_within(report: Report, seconds: float) -> None:
    """Not solved, with a verdict, in less than `seconds` (a generous bound above the problem's limits) on a quiet
    machine, or that many times slowdown() on a busy one."""
    assert not report.solved, [(check.id, check.status, check.message[:200]) for check in report.checks]
    assert report.status in ("failed", "error")
    bound = seconds * slowdown()
    assert report.duration_ms < bound * 1000, f"took {report.duration_ms:.0f} ms, bound {bound:.1f} s"
