"""The verdict report: the one JSON document every grading run produces (CLI, web app, queue workers)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# A check's message names the call, expected and got: a few lines. A submission that returns 8,000 strings used
# to make each message 656 KB and its report 22 MB, stored, replayed over SSE and embedded in the page.
MAX_MESSAGE_CHARS = 4000
MAX_OUTPUT_CHARS = 5000  # what a check printed: the judge keeps 4,000 characters and notes the cut
MAX_REPORT_BYTES = 1_000_000  # the whole JSON document; outputs and messages are trimmed to fit, checks never
MIN_TRIMMED_CHARS = 200  # what trimming leaves of a message or an output at the least

CheckStatus = Literal["passed", "failed", "error", "skipped"]
ReportStatus = Literal["passed", "failed", "error"]
SandboxKind = Literal["bubblewrap", "none"]
ErrorKind = Literal["load", "limit", "sandbox", "grader"]
LimitKind = Literal["time", "total_time", "memory", "output", "processes", "crash", "message_size", "tampering"]


class CheckResult(BaseModel):
    """One check's verdict. `failed` blames the submission, `error` blames the grader, `skipped` was not run."""

    id: str
    title: str
    group: str
    required: bool
    status: CheckStatus
    message: str = ""
    duration_ms: float = 0.0
    output: str = Field(default="", description="What the submission printed during this check (truncated).")
    limit: LimitKind | None = Field(
        default=None,
        description="What ended the learner's call, when something did: a time, memory, process or message-size "
        "limit, a crash, or interference with the grader. Also set on a check not run because the function it "
        "needed had already hit that limit in this grading.",
    )
    diagnosis: str | None = Field(
        default=None,
        description="The known mistake (a mutant's description) that reproduces what the learner's call returned, "
        "when one does; the message then gives it in place of the check's generic hint.",
    )


class Experiment(BaseModel):
    """Series a problem's experiment produced with the learner's functions, for the charts."""

    steps: list[int]
    series: dict[str, list[float | None]] = Field(description="None where the value was not finite (a gap).")
    x_label: str = Field(default="step", description="What the steps are: the horizontal axis of every chart "
                         "(a training step, a rank, a distance).")


class ReportError(BaseModel):
    """Why a submission could not be graded as a whole (it did not load, hit a limit, no sandbox, grader bug)."""

    kind: ErrorKind
    message: str
    line: int | None = Field(default=None, description="Line of the learner's code, for load errors.")
    limit: LimitKind | None = Field(default=None, description="What ended loading, when something did.")


class Report(BaseModel):
    problem: str
    solved: bool
    status: ReportStatus
    checks: list[CheckResult]
    experiment: Experiment | None = None
    limits: dict[str, float | int] = Field(default_factory=dict)
    sandbox: SandboxKind = "bubblewrap"
    duration_ms: float = 0.0
    error: ReportError | None = None
    stopped: bool = Field(
        default=False,
        description="The learner stopped the grading (the Stop button): checks that had not finished are "
        "`skipped` (\"stopped by you\"), those that had keep their verdicts. Solved only when the stop came "
        "after every required check had passed (among the advisory checks, which decide nothing).",
    )

    @property
    def passed_count(self) -> int:
        return sum(check.status == "passed" for check in self.checks)


def cap_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`text` in at most `limit` characters, ending "... N more characters" when cut; capping twice changes
    nothing."""
    if len(text) <= limit:
        return text
    kept = max(0, limit - len(f"... {len(text)} more characters"))
    return f"{text[:kept]}... {len(text) - kept} more characters"


def _capped_check(check: CheckResult, limit: int) -> CheckResult:
    output_limit = MAX_OUTPUT_CHARS if limit == MAX_MESSAGE_CHARS else limit  # trimmed alike only to fit the report
    if len(check.message) <= limit and len(check.output) <= output_limit:
        return check  # the usual case: no copy (a report is built after every grading)
    return check.model_copy(update={"message": cap_text(check.message, limit),
                                    "output": cap_text(check.output, output_limit)})


def _capped(checks: list[CheckResult], error: ReportError | None, limit: int
            ) -> tuple[list[CheckResult], ReportError | None]:
    if error is not None and len(error.message) > limit:
        error = error.model_copy(update={"message": cap_text(error.message, limit)})
    return [_capped_check(check, limit) for check in checks], error


def fit_report(report: Report, *, max_bytes: int = MAX_REPORT_BYTES) -> Report:
    """Every message capped at MAX_MESSAGE_CHARS and output at MAX_OUTPUT_CHARS, then both trimmed harder until
    the JSON document fits `max_bytes` (or they are down to MIN_TRIMMED_CHARS each); every check stays, with its
    status."""
    original_checks, original_error = report.checks, report.error
    limit = MAX_MESSAGE_CHARS
    while True:
        checks, error = _capped(original_checks, original_error, limit)
        if error is not report.error or any(new is not old for new, old in zip(checks, report.checks, strict=True)):
            report = report.model_copy(update={"checks": checks, "error": error})
        if limit <= MIN_TRIMMED_CHARS or _size_bound(report) <= max_bytes:
            return report
        if len(report.model_dump_json().encode()) <= max_bytes:
            return report
        limit = max(MIN_TRIMMED_CHARS, limit // 2)


def _size_bound(report: Report) -> int:
    """An upper bound on the report's JSON size in bytes, without serialising it (that takes ~0.4 ms for a
    MoCo report): a character takes at most 6 bytes (an escape), a number at most 32."""
    text = len(report.problem) + (len(report.error.message) if report.error else 0)
    text += sum(len(name) for name in report.limits)  # uncounted, 2,000 long limit names outgrew the bound
    text += sum(len(c.id) + len(c.title) + len(c.group) + len(c.message) + len(c.output) + len(c.diagnosis or "")
                for c in report.checks)
    numbers = len(report.limits) + len(report.checks)
    if report.experiment is not None:
        text += sum(len(name) for name in report.experiment.series) + len(report.experiment.x_label)
        numbers += len(report.experiment.steps) + sum(len(v) for v in report.experiment.series.values())
    return 6 * text + 32 * numbers + 240 * len(report.checks) + 1000


def summarise(
    *,
    problem: str,
    checks: list[CheckResult],
    experiment: Experiment | None,
    limits: dict[str, float | int],
    sandbox: SandboxKind,
    duration_ms: float,
    error: ReportError | None = None,
    stopped: bool = False,
    verdict: bool = False,
) -> Report:
    """Derive `solved` and `status` from the checks so no caller can get them out of step; cap the document's
    size (fit_report). A grading stopped before a verdict was told is not solved: its status is `failed` (or
    `error` as usual).

    `verdict`: the judge announced this grading solved when its required checks were done, before the advisory
    ones ran (grade's `on_verdict`: the page showed it and unlocked the notes). What happens after that, a stop,
    an advisory check the grader broke on, a sandbox lost, does not take it back; the checks must still show
    every required one passed."""
    required_ok = all(c.status == "passed" for c in checks if c.required)
    grader_broke = any(c.status == "error" for c in checks)  # a ReportError of any kind already means "error"
    undisturbed = error is None and not grader_broke and not stopped
    solved = bool(checks) and required_ok and (verdict or undisturbed)
    if solved:
        status: ReportStatus = "passed"
    elif error is not None or grader_broke:
        status = "error"
    else:
        status = "failed"
    return fit_report(Report(
        problem=problem,
        solved=solved,
        status=status,
        checks=checks,
        experiment=experiment,
        limits=limits,
        sandbox=sandbox,
        duration_ms=round(duration_ms, 3),
        error=error,
        stopped=stopped,
    ))
