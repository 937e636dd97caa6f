"""`paperlab test` in a terminal and in a log: each failure as it arrives, a progress bar, then the functions'
tallies, the page's notices and the page's summary sentence, last."""

from __future__ import annotations

import io
from dataclasses import replace

from paperlab.events import CallEvent, CheckEvent, ReportEvent, StatusEvent, VerdictEvent
from paperlab.schemas import CheckResult, Report, ReportError, Submission, Summary
from paperlab.terminal import RunDisplay, wants_colour


def check(check_id: str, status: str, message: str = "", **extra: object) -> CheckResult:
    return CheckResult(id=check_id, title=f"{check_id} works", group=check_id.split(".")[0], required=True,
                       status=status, message=message, duration_ms=2.0, **extra)  # type: ignore[arg-type]  # fmt: skip


CHECKS = [
    check("loss.a", "passed"),
    check("loss.b", "failed", "loss(x=float32[2]): expected 0.3133, got 0.5410"),
    check("ema.a", "passed"),
    check("ema.b", "failed", "ema(m=0): expected -0.24, got 0.80", output="debug: m=0\n"),
]


def submission(checks: list[CheckResult], summary: str, tone: str, **report: object) -> Submission:
    solved = tone == "passed"
    return Submission(id="s1", problem="p", status="done", created_at="", code="",
                      report=Report(problem="p", solved=solved, status="passed" if solved else "failed",
                                    checks=checks, **report),  # type: ignore[arg-type]
                      summary=Summary(text=summary, tone=tone))  # fmt: skip


def play(display: RunDisplay, checks: list[CheckResult], final: Submission) -> str:
    display.show(StatusEvent(status="queued", total=len(checks)))
    display.show(StatusEvent(status="running", total=len(checks)))
    for done, result in enumerate(checks, 1):
        display.show(CheckEvent(check=result, done=done, total=len(checks)))
    display.show(ReportEvent(final))
    assert isinstance(display.out, io.StringIO)
    return display.out.getvalue()


def test_into_a_log_failures_come_as_they_arrive_then_tallies_then_the_summary() -> None:
    text = play(RunDisplay(io.StringIO()), CHECKS,
                submission(CHECKS, "Not solved yet: 2 of 4 checks failing. Start with “loss.b works”.", "failed"))
    lines = text.splitlines()
    assert lines[0] == "[########......................] 1 / 4 checks"  # a bar line per quarter of the checks
    assert lines[1] == "✗ loss.b works  failed"
    assert lines[2] == "    loss.b · 2 ms" and lines[3] == "    loss(x=float32[2]): expected 0.3133, got 0.5410"
    assert "[########xxxxxxxx..............] 2 / 4 checks · 1 failing" in lines
    assert "✗ ema.b works [printed output]  failed" in lines
    assert "    Your code printed:" in lines and "    │ debug: m=0" in lines
    assert lines[-4:] == ["[###############xxxxxxxxxxxxxxx] 4 / 4 checks · 2 failing",
                          "  ✗ loss  1 / 2", "  ✗ ema   1 / 2",
                          "Not solved yet: 2 of 4 checks failing. Start with “loss.b works”."]  # fmt: skip
    assert "loss.a works" not in text  # passed checks are counted, not listed


def test_a_failure_the_stream_missed_is_still_printed_from_the_report() -> None:
    display = RunDisplay(io.StringIO())
    display.show(ReportEvent(submission(CHECKS, "Not solved yet: 2 of 4 checks failing.", "failed")))
    text = display.out.getvalue()  # type: ignore[attr-defined]
    assert text.index("✗ loss.b works") < text.index("✗ ema.b works") < text.index("  ✗ loss  1 / 2")


def test_verbose_lists_the_passed_checks_after_the_failures() -> None:
    text = play(RunDisplay(io.StringIO(), verbose=True), CHECKS, submission(CHECKS, "Not solved yet.", "failed"))
    assert text.index("✗ ema.b works") < text.index("✓ loss.a works  passed") < text.index("  ✗ loss  1 / 2")


def test_on_a_terminal_the_bar_redraws_in_place_and_is_cleared_for_each_failure() -> None:
    out = io.StringIO()
    display = RunDisplay(out, live=True)
    display.show(StatusEvent(status="running", total=4))
    display.show(CheckEvent(check=CHECKS[0], done=1, total=4))
    display.show(CallEvent(function="ema", running_s=6.2))
    display.show(CheckEvent(check=CHECKS[1], done=2, total=4))
    text = out.getvalue()
    assert "\r\x1b[2K[########......................] 1 / 4 checks  ema has been running for 6 s" in text
    failure = text.index("✗ loss.b works")
    assert text[:failure].endswith("\r\x1b[2K")  # the bar line is wiped before the failure is printed over it
    assert text.endswith("2 / 4 checks · 1 failing  Running checks…")


def test_on_a_terminal_a_told_solve_stays_on_the_bar_while_the_optional_checks_finish() -> None:
    out = io.StringIO()
    display = RunDisplay(out, live=True)
    display.show(StatusEvent(status="running", total=4))
    display.show(CheckEvent(check=CHECKS[0], done=1, total=4))
    display.show(VerdictEvent(solved=True))
    assert out.getvalue().endswith("1 / 4 checks  Solved: all required checks pass. The optional checks are still "
                                   "running…")
    display.show(CheckEvent(check=CHECKS[2], done=2, total=4))
    assert out.getvalue().endswith("2 / 4 checks  Solved: all required checks pass. The optional checks are still "
                                   "running…")


def test_a_load_error_shows_the_pages_notice() -> None:
    error = ReportError(kind="load", message="SyntaxError: invalid syntax (line 3)", line=3)
    text = play(RunDisplay(io.StringIO()), [], submission(
        [], "Your code did not load (line 3), so no check could run. Fix the error below and run again.", "error",
        error=error))  # fmt: skip
    assert "Load error on line 3\n    SyntaxError: invalid syntax (line 3)\n" in text


def test_a_limit_shows_the_pages_advice_and_the_limits_message() -> None:
    timed_out = [replace(CHECKS[1], limit="time", message="time limit 5 s exceeded in loss")]
    text = play(RunDisplay(io.StringIO()), timed_out,
                submission(timed_out, "Stopped by a resource limit. 0 / 1 checks passed.", "limit"))  # fmt: skip
    assert "✗ loss.b works [time limit]  failed" in text
    assert "Time or memory limit reached\n    PaperLab stopped your code. Look for an endless loop" in text


def test_colours_are_for_terminals_and_never_with_no_color() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert wants_colour(Terminal(), {}) and not wants_colour(Terminal(), {"NO_COLOR": "1"})
    assert not wants_colour(io.StringIO(), {}) and wants_colour(io.StringIO(), {"FORCE_COLOR": "1"})
    solved = [check("loss.a", "passed")]
    text = play(RunDisplay(io.StringIO(), colour=True), solved, submission(solved, "Solved: all required", "passed"))
    assert "\x1b[32;1mSolved: all required\x1b[0m" in text
