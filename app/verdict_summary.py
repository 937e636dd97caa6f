"""A finished run's one-sentence summary, in the words of the problem page's verdict panel
(`describe()` in static/src/verdicts.js; a test runs both on the same reports). The API sends it with every
finished submission, so the `paperlab` command and the notebook extension say what the page says without
re-deriving it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from grader import CheckResult, Report

Tone = Literal["passed", "stopped", "error", "limit", "failed"]
# What ended a learner's call that is a resource running out (the others, a crash or tampering, are not).
RESOURCE_LIMITS = frozenset({"time", "total_time", "memory", "output", "processes", "message_size"})
NO_REPORT = "The grader could not produce a report for this run. This is not your fault; please run the tests again."


class Summary(BaseModel):
    text: str
    tone: Tone


def hit_resource_limit(check: CheckResult) -> bool:
    return check.limit in RESOURCE_LIMITS


def format_duration(ms: float) -> str:
    """As the page's formatDuration: "0.42 ms", "412 ms", "1.23 s"."""
    if ms < 1:
        return f"{ms:.2f} ms"
    if ms < 1000:
        return f"{_round_half_up(ms)} ms"
    return f"{ms / 1000:.2f} s"


def summarise(report: Report | None) -> Summary:
    if report is None:
        return Summary(text=NO_REPORT, tone="error")
    checks = report.checks
    passed = sum(1 for check in checks if check.status == "passed")
    failing = [check for check in checks if check.status in ("failed", "error")]
    seconds = f" in {format_duration(report.duration_ms)}" if report.duration_ms else ""
    error = report.error
    if report.solved:
        optional = sum(1 for check in failing if not check.required)
        extra = f" ({optional} optional {_checks(optional)} still failing)" if optional else ""
        return Summary(text=f"Solved: all required checks pass{extra}, {passed} / {len(checks)}{seconds}.",
                       tone="passed")  # fmt: skip
    if report.stopped:
        return Summary(text=f"Stopped by you. {passed} / {len(checks)} checks passed before the stop.", tone="stopped")
    if error is not None and error.kind == "load":
        where = f" (line {error.line})" if error.line else ""
        return Summary(text=f"Your code did not load{where}, so no check could run. Fix the error below and run again.",
                       tone="error")  # fmt: skip
    if (error is not None and error.kind == "limit") or any(hit_resource_limit(check) for check in failing):
        return Summary(text=f"Stopped by a resource limit. {passed} / {len(checks)} checks passed.", tone="limit")
    if error is not None and error.kind == "sandbox":
        return Summary(text="The sandbox could not start, so your code was not run. Try again in a moment.",
                       tone="error")  # fmt: skip
    if (error is not None and error.kind == "grader") or any(check.status == "error" for check in checks):
        return Summary(text="The grader itself failed on some checks. That is not your fault; try again later.",
                       tone="error")  # fmt: skip
    start = f" Start with “{failing[0].title}”." if failing else ""
    return Summary(text=f"Not solved yet: {len(failing)} of {len(checks)} checks failing.{start}", tone="failed")


def _checks(count: int) -> str:
    return "check" if count == 1 else "checks"


def _round_half_up(value: float) -> int:
    """JavaScript's Math.round (halves go up), not Python's round (halves go to even)."""
    return int(value + 0.5)
