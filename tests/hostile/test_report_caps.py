"""A submission cannot bloat its report: every message is capped, and so is the whole document."""

from __future__ import annotations

from collections.abc import Callable

from grader.report import MAX_MESSAGE_CHARS, MAX_REPORT_BYTES, Report
from tests.hostile.hostile_support import assert_unsolved_within, submission

GradeCode = Callable[..., Report]


def test_returning_8000_strings_gives_capped_messages(grade_code: GradeCode) -> None:
    """Every check describes the 8,000-string list it got; that was 656 KB per message and 22 MB per report."""
    report = grade_code(submission("many_strings"))
    assert_unsolved_within(report, 30)
    assert len(report.checks) == 5
    described = [check for check in report.checks if "word-00000-" in check.message]
    assert described, [check.message[:300] for check in report.checks]
    for check in report.checks:
        assert len(check.message) <= MAX_MESSAGE_CHARS, (check.id, len(check.message))
    assert any(check.message.endswith(" more characters") for check in described)
    assert len(report.model_dump_json().encode()) <= MAX_REPORT_BYTES
