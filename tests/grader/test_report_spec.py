"""grader.report, specified: summarise keeps what the run was (sandbox, experiment, limits), counts only what
passed, and fit_report caps the document without dropping a check or overshooting its cap."""

from __future__ import annotations

import pytest

from grader.report import (
    MAX_MESSAGE_CHARS,
    MAX_OUTPUT_CHARS,
    MIN_TRIMMED_CHARS,
    CheckResult,
    Experiment,
    Report,
    ReportError,
    _size_bound,
    cap_text,
    fit_report,
    summarise,
)


def result(status: str, *, required: bool = True, message: str = "", output: str = "") -> CheckResult:
    return CheckResult(id="g.c", title="t", group="g", required=required, status=status,
                       message=message, output=output)


def test_summarise_keeps_what_the_run_was() -> None:
    experiment = Experiment(steps=[1, 2], series={"loss": [0.5, None]})
    error = ReportError(kind="limit", message="out of time", limit="time")
    checks = [result("passed"), result("skipped")]
    got = summarise(problem="moco", checks=checks, experiment=experiment, limits={"memory_mb": 512},
                    sandbox="none", duration_ms=1.23456, error=error)
    assert got == Report(problem="moco", solved=False, status="error", checks=checks, experiment=experiment,
                         limits={"memory_mb": 512}, sandbox="none", duration_ms=1.235, error=error)


@pytest.mark.parametrize(
    "statuses, passed",
    [([], 0), (["passed"], 1), (["failed", "error", "skipped"], 0), (["passed", "skipped", "passed", "error"], 2)],
)
def test_passed_count_counts_only_passed_checks(statuses: list[str], passed: int) -> None:
    assert summarise(problem="p", checks=[result(s) for s in statuses], experiment=None, limits={},
                     sandbox="bubblewrap", duration_ms=0.0).passed_count == passed


@pytest.mark.parametrize(
    "checks, error, solved, status",
    [
        pytest.param([result("passed")], ReportError(kind="grader", message="bug"), False, "error", id="grader-bug"),
        pytest.param([result("failed"), result("error", required=False)], None, False, "error",
                     id="a-grader-error-outranks-a-failure"),
        pytest.param([result("passed", required=False)], None, True, "passed", id="only-advisory-passed"),
        pytest.param([result("skipped", required=False), result("passed")], None, True, "passed",
                     id="advisory-skipped"),
    ],
)
def test_solved_and_status(checks: list[CheckResult], error: ReportError | None, solved: bool, status: str) -> None:
    got = summarise(problem="p", checks=checks, experiment=None, limits={}, sandbox="bubblewrap", duration_ms=0.0,
                    error=error)
    assert (got.solved, got.status) == (solved, status)


@pytest.mark.parametrize(
    "text, limit, capped",
    [
        pytest.param("abcdef", 6, "abcdef", id="at-the-limit"),
        # at most `limit`: the note is sized for the whole text's length, so a little more may go
        pytest.param("a" * 40, 30, "a" * 8 + "... 32 more characters", id="over"),
        pytest.param("a" * 30, 5, "... 30 more characters", id="limit-shorter-than-the-note"),
    ],
)
def test_cap_text(text: str, limit: int, capped: str) -> None:
    assert cap_text(text, limit) == capped


def test_messages_and_outputs_have_their_own_caps() -> None:
    at_caps = result("failed", message="m" * MAX_MESSAGE_CHARS, output="o" * MAX_OUTPUT_CHARS)
    report = fit_report(Report(problem="p", solved=False, status="failed", checks=[at_caps]))
    assert report.checks[0] is at_caps  # nothing to cut: no copy

    over = result("failed", message="m" * (MAX_MESSAGE_CHARS + 1), output="o" * (MAX_OUTPUT_CHARS + 1))
    (check,) = fit_report(Report(problem="p", solved=False, status="failed", checks=[over])).checks
    assert check.message == "m" * (MAX_MESSAGE_CHARS - 24) + "... 25 more characters"
    assert check.output == "o" * (MAX_OUTPUT_CHARS - 24) + "... 25 more characters"


def test_an_error_message_at_the_cap_is_left_alone() -> None:
    error = ReportError(kind="load", message="e" * MAX_MESSAGE_CHARS)
    assert fit_report(Report(problem="p", solved=False, status="error", checks=[], error=error)).error is error


def test_a_report_that_fits_exactly_is_not_trimmed() -> None:
    report = Report(problem="p", solved=False, status="failed", checks=[result("failed", message="m" * 3000)] * 3)
    size = len(report.model_dump_json().encode())
    assert fit_report(report, max_bytes=size) == report


def test_trimming_halves_the_caps_until_the_report_fits() -> None:
    checks = [result("failed", message="m" * 9000, output="o" * 9000) for _ in range(5)]
    report = fit_report(Report(problem="p", solved=False, status="failed", checks=checks), max_bytes=25_000)
    # 4,000 + 5,000 characters a check do not fit; 2,000 + 2,000 do
    assert {(len(c.message), len(c.output)) for c in report.checks} == {(2000, 2000)}


def test_trimming_stops_at_the_floor_even_when_the_report_cannot_fit() -> None:
    checks = [result("failed", message="m" * 9000, output="o" * 9000) for _ in range(5)]
    error = ReportError(kind="grader", message="e" * 9000)
    report = fit_report(Report(problem="p", solved=False, status="error", checks=checks, error=error), max_bytes=10)
    assert {(len(c.message), len(c.output)) for c in report.checks} == {(MIN_TRIMMED_CHARS, MIN_TRIMMED_CHARS)}
    assert report.error is not None and len(report.error.message) == MIN_TRIMMED_CHARS


ESCAPED = "\x01"  # written as \u0001 in JSON: six bytes for one character


@pytest.mark.parametrize(
    "report",
    [
        pytest.param(Report(problem=ESCAPED * 500, solved=False, status="failed", checks=[]), id="problem"),
        pytest.param(Report(problem="p", solved=False, status="error", checks=[],
                            error=ReportError(kind="load", message=ESCAPED * 500)), id="error"),
        pytest.param(Report(problem="p", solved=False, status="failed",
                            checks=[CheckResult(id=ESCAPED * 100, title=ESCAPED * 100, group=ESCAPED * 100,
                                                required=True, status="failed", message=ESCAPED * 300,
                                                output=ESCAPED * 300)] * 3), id="checks"),
        pytest.param(Report(problem="p", solved=False, status="failed", checks=[],
                            limits={f"l{i}": -1.2345678901234567e-300 for i in range(200)}), id="limits"),
        pytest.param(Report(problem="p", solved=False, status="failed", checks=[],
                            experiment=Experiment(steps=list(range(10**17, 10**17 + 300)),
                                                  series={ESCAPED * 300: [-1.2345678901234567e-300] * 300})),
                     id="experiment"),
        pytest.param(Report(problem="p", solved=False, status="failed", checks=[result("passed")] * 40),
                     id="many-short-checks"),
    ],
)
def test_the_size_bound_is_never_below_the_real_size(report: Report) -> None:
    assert _size_bound(report) >= len(report.model_dump_json().encode())


def test_a_report_of_escaped_characters_still_fits_its_cap() -> None:
    checks = [result("failed", message=ESCAPED * 4000) for _ in range(10)]
    report = fit_report(Report(problem="p", solved=False, status="failed", checks=checks), max_bytes=150_000)
    assert len(report.model_dump_json().encode()) <= 150_000


def test_a_long_error_is_capped_when_every_check_is_short() -> None:
    check = result("skipped")
    report = fit_report(Report(problem="p", solved=False, status="error", checks=[check],
                               error=ReportError(kind="load", message="e" * (MAX_MESSAGE_CHARS + 1))))
    assert report.error is not None
    assert report.error.message == "e" * (MAX_MESSAGE_CHARS - 24) + "... 25 more characters"
    assert report.checks == [check]


@pytest.mark.parametrize(
    "report",
    [
        pytest.param(Report(problem="p", solved=False, status="failed",
                            checks=[result("failed", message=ESCAPED * 900)],
                            experiment=Experiment(steps=[1], series={"a": [1.0]})), id="text-besides-an-experiment"),
        pytest.param(Report(problem="p", solved=False, status="failed", checks=[],
                            limits={f"{i}": -1.2345678901234567e-300 for i in range(2000)},
                            experiment=Experiment(steps=[1], series={"a": [1.0]})),
                     id="limits-besides-an-experiment"),
        pytest.param(Report(problem="p", solved=False, status="failed", checks=[],
                            experiment=Experiment(steps=[1], series={ESCAPED * 3000: [1.0]})), id="long-series-name"),
        pytest.param(Report(problem="p", solved=False, status="failed", checks=[],
                            experiment=Experiment(steps=[1], series={"a": [1.0]}, x_label=ESCAPED * 3000)),
                     id="long-axis-label"),
    ],
)
def test_the_size_bound_counts_everything_besides_an_experiment(report: Report) -> None:
    assert _size_bound(report) >= len(report.model_dump_json().encode())


def test_a_report_within_its_bound_is_not_serialised_to_check_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Serialising a MoCo report takes ~0.4 ms and fit_report runs after every grading: a report whose bound is
    within the cap is returned without it."""
    report = Report(problem="p", solved=False, status="error", checks=[result("failed", message="m")],
                    limits={"memory_mb": 256}, experiment=Experiment(steps=[1], series={"loss": [1.0]}))

    def refuse(*args: object, **kwargs: object) -> str:
        raise AssertionError("serialised a report whose bound fits")

    # 24 characters of text (the axis label "step" among them) at 6 bytes, 4 numbers at 32, 240 for the one
    # check's fields, 1,000 for the rest
    bound = 6 * 24 + 32 * 4 + 240 + 1000
    monkeypatch.setattr(Report, "model_dump_json", refuse)
    assert fit_report(report, max_bytes=bound) is report


def test_the_size_bound_counts_a_checks_diagnosis() -> None:
    report = Report(problem="p", solved=False, status="failed",
                    checks=[result("failed", message="m").model_copy(update={"diagnosis": ESCAPED * 5000})])
    assert _size_bound(report) >= len(report.model_dump_json().encode())
