"""How `paperlab test` shows a run in a terminal: a progress bar while the checks finish, each failure printed as
soon as it arrives (failures come first, before anything about the checks that passed), then the functions'
tallies, the page's notices and the page's summary sentence (the server sends it: app/verdict_summary.py).

The words are the page's (static/src/verdicts.js): status words, limit badges, "Your code printed:", the
notices' titles and advice. On a terminal the bar redraws in place; into a pipe or a file it is printed as a
line at each quarter of the checks, so a log shows progress without a line per check."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TextIO

from paperlab.events import SOLVED_EARLY, CallEvent, CheckEvent, Event, ReportEvent, StatusEvent, VerdictEvent
from paperlab.schemas import CheckResult, Report, Submission

ICONS = {"passed": "✓", "failed": "✗", "error": "!", "skipped": "–"}
STATUS_WORDS = {"passed": "passed", "failed": "failed", "error": "grader error", "skipped": "skipped"}
LIMIT_WORDS = {
    "time": "time limit", "total_time": "total time limit", "memory": "memory limit", "output": "output limit",
    "processes": "process limit", "crash": "crashed", "message_size": "result too large", "tampering": "interfered",
}  # fmt: skip
RESOURCE_LIMITS = frozenset({"time", "total_time", "memory", "output", "processes", "message_size"})
LIMIT_ADVICE = ("PaperLab stopped your code. Look for an endless loop, a very large tensor, or a Python loop that "
                "should be a tensor operation.")  # fmt: skip
BAR_WIDTH = 30
TONE_COLOURS = {"passed": "green", "failed": "red", "error": "red", "limit": "yellow", "stopped": "yellow"}
CODES = {"green": "32", "red": "31", "yellow": "33", "dim": "2", "bold": "1"}


def wants_colour(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """ANSI colours on a terminal, unless NO_COLOR is set (no-color.org); FORCE_COLOR forces them."""
    if environ.get("NO_COLOR"):
        return False
    return bool(environ.get("FORCE_COLOR")) or stream.isatty()


@dataclass
class RunDisplay:
    out: TextIO
    colour: bool = False
    live: bool = False  # redraw the bar in place (a terminal)
    verbose: bool = False  # every check, passed ones too, with its message
    results: dict[str, CheckResult] = field(default_factory=dict)
    shown: set[str] = field(default_factory=set)  # failures already printed
    total: int = 0
    note: str = ""
    _bar_on_screen: bool = False
    _quarters_printed: int = 0

    # ----------------------------------------------------------------------------------------- the run

    def show(self, event: Event) -> None:
        if isinstance(event, StatusEvent):
            self.total = event.total or self.total
            self.note = "Running checks…" if event.status == "running" else "Queued: waiting for a free grader…"
            self._draw()
        elif isinstance(event, CheckEvent):
            self.total = event.total or self.total
            self.note = SOLVED_EARLY if self.note == SOLVED_EARLY else "Running checks…"  # a solve stays said
            self.results[event.check.id] = event.check
            if event.check.status in ("failed", "error") and event.check.id not in self.shown:
                self._print_check(event.check)
            self._draw()
        elif isinstance(event, CallEvent):
            self.note = _call_note(event)
            self._draw()
        elif isinstance(event, VerdictEvent) and event.solved:
            self.note = SOLVED_EARLY
            self._draw()
        elif isinstance(event, ReportEvent):
            self.finish(event.submission)

    def finish(self, submission: Submission) -> None:
        """The final report, the source of truth (the stream may have replayed or missed a check)."""
        self._clear_bar()
        report = submission.report
        if report is not None:
            for check in report.checks:
                if check.status in ("failed", "error") and check.id not in self.shown:
                    self._print_check(check)
            if self.verbose:
                for check in report.checks:
                    if check.status not in ("failed", "error"):
                        self._print_check(check)
            if not self.live and self.total:
                self.results = {check.id: check for check in report.checks}
                self._progress_line(final=True)
            self._print_groups(report)
            self._print_notices(report)
        summary = submission.summary
        if summary is not None:
            self._line(self._paint(summary.text, TONE_COLOURS.get(summary.tone, "bold"), bold=True))

    def say(self, text: str) -> None:
        """A line of the command's own (waiting for a rate limit, stopping), above the bar."""
        self._clear_bar()
        self._line(text)
        self._draw()

    # ----------------------------------------------------------------------------------------- checks

    def _print_check(self, check: CheckResult) -> None:
        self._clear_bar()
        self.shown.add(check.id)
        colour = {"passed": "green", "failed": "red", "error": "red", "skipped": "dim"}.get(check.status, "bold")
        badges = []
        if not check.required:
            badges.append("optional")
        if check.limit in LIMIT_WORDS:
            badges.append(LIMIT_WORDS[check.limit])
        if check.output:
            badges.append("printed output")
        badge_text = "".join(f" [{badge}]" for badge in badges)
        head = f"{ICONS.get(check.status, '?')} {check.title or check.id}{badge_text}"
        status = STATUS_WORDS.get(check.status, check.status)
        self._line(f"{self._paint(head, colour, bold=True)}  {self._paint(status, colour)}")
        self._line(self._paint(f"    {check.id} · {format_duration(check.duration_ms)}", "dim"))
        if check.message:
            self._indented(check.message)
        if check.output:
            self._line("    Your code printed:")
            self._indented(check.output, prefix="    │ ")
        if check.status in ("failed", "error"):
            self._line("")

    def _print_groups(self, report: Report) -> None:
        groups: dict[str, list[CheckResult]] = {}
        for check in report.checks:
            groups.setdefault(check.group, []).append(check)
        if not groups:
            return
        width = max(len(name) for name in groups)
        for name, checks in groups.items():
            passed = sum(1 for check in checks if check.status == "passed")
            clean = passed == len(checks)
            mark = self._paint("✓" if clean else "✗", "green" if clean else "red")
            self._line(f"  {mark} {name.ljust(width)}  {passed} / {len(checks)}")

    def _print_notices(self, report: Report) -> None:
        """As the page's notices above the verdicts."""
        if report.sandbox == "none":
            self._notice("Graded without a sandbox", "This server runs submissions unsandboxed (development mode).",
                         None, "yellow")  # fmt: skip
        error = report.error
        hit = next((check for check in report.checks if check.limit in RESOURCE_LIMITS), None)
        if error is not None and error.kind == "load":
            title = f"Load error on line {error.line}" if error.line else "Load error"
            self._notice(title, None, error.message, "red")
        elif (error is not None and error.kind == "limit") or hit is not None:
            message = (error.message if error is not None and error.message else None) or (hit.message if hit else "")
            self._notice("Time or memory limit reached", LIMIT_ADVICE, message or None, "yellow")
        elif error is not None:
            self._notice("Sandbox error" if error.kind == "sandbox" else "Grader error", None, error.message, "red")

    def _notice(self, title: str, text: str | None, message: str | None, colour: str) -> None:
        self._line("")
        self._line(self._paint(title, colour, bold=True))
        if text:
            self._line(f"    {text}")
        if message:
            self._indented(message)

    # ----------------------------------------------------------------------------------------- progress

    def _draw(self) -> None:
        if not self.total:
            return
        if not self.live:
            self._progress_line(final=False)
            return
        self.out.write("\r\x1b[2K" + self._bar() + (f"  {self.note}" if self.note else ""))
        self.out.flush()
        self._bar_on_screen = True

    def _progress_line(self, *, final: bool) -> None:
        """Not a terminal: a bar line each time another quarter of the checks is done (and once at the end)."""
        quarter = len(self.results) * 4 // self.total
        if final and self._quarters_printed < 4:
            quarter = 4
        if quarter > self._quarters_printed:
            self._quarters_printed = quarter
            self._line(self._bar())

    def _bar(self) -> str:
        done = len(self.results)
        total = max(self.total, done)
        passed = sum(1 for check in self.results.values() if check.status == "passed")
        failing = sum(1 for check in self.results.values() if check.status in ("failed", "error"))
        green = round(BAR_WIDTH * passed / total) if total else 0
        red = min(BAR_WIDTH - green, round(BAR_WIDTH * failing / total)) if total else 0
        rest = BAR_WIDTH - green - red
        if self.colour:
            bar = self._paint("█" * green, "green") + self._paint("█" * red, "red") + self._paint("░" * rest, "dim")
        else:
            bar = "#" * green + "x" * red + "." * rest
        failing_text = f" · {failing} failing" if failing else ""
        return f"[{bar}] {done} / {total} checks{failing_text}"

    def _clear_bar(self) -> None:
        if self._bar_on_screen:
            self.out.write("\r\x1b[2K")
            self._bar_on_screen = False

    # ----------------------------------------------------------------------------------------- text

    def _line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def _indented(self, text: str, prefix: str = "    ") -> None:
        for line in text.rstrip("\n").splitlines() or [""]:
            self._line(prefix + line)

    def _paint(self, text: str, colour: str, *, bold: bool = False) -> str:
        if not self.colour or not text:
            return text
        codes = CODES[colour] + (";1" if bold and colour != "bold" else "")
        return f"\x1b[{codes}m{text}\x1b[0m"


def _call_note(event: CallEvent) -> str:
    if event.function is None:
        return "Running checks…"
    seconds = f"{event.running_s:.0f} s"
    if event.function == "":
        return f"Your code has been loading for {seconds}"
    return f"{event.function} has been running for {seconds}"


def format_duration(ms: float) -> str:
    """As the page's formatDuration (static/src/verdicts.js)."""
    if ms < 1:
        return f"{ms:.2f} ms"
    if ms < 1000:
        return f"{int(ms + 0.5)} ms"
    return f"{ms / 1000:.2f} s"
