"""Small helpers for the hostile tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

from pathlib import Path

from grader.report import Report

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
REPO = Path(__file__).resolve().parents[2]
ADDER_DIR = REPO / "tests" / "fixtures" / "problems" / "adder"
HOST_SECRET_NAME = "HOSTILE_TEST_HOST_SECRET"  # tests/conftest.py sets it before a pool starts


def submission(name: str) -> str:
    return (SUBMISSIONS / f"{name}.py").read_text()


def messages(report: Report) -> dict[str, str]:
    return {check.id: check.message for check in report.checks}


def assert_unsolved_within(report: Report, seconds: float) -> None:
    """Not solved, with a verdict, in less than `seconds` (a generous bound above the problem's limits)."""
    assert not report.solved, [(check.id, check.status, check.message[:200]) for check in report.checks]
    assert report.status in ("failed", "error")
    assert report.duration_ms < seconds * 1000, f"took {report.duration_ms:.0f} ms, bound {seconds} s"
