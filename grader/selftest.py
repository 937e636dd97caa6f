"""`python -m grader selftest`: prove that a problem's check battery is sound before learners see it.

A problem is sound when
- problem.toml, the reference and the checks load (errors name the file and line);
- the reference passes every check, within the battery's time budget (limits.total_timeout_s);
- the reference graded twice gets identical verdicts (same status and message for every check): no flaky checks;
- the starter loads and fails cleanly: not solved, no check crashing (status "error"), no load error;
- every file in mutants/ (a known-wrong solution) fails at least one required check, and no check crashes on it;
- every file in variants/ (a correct solution written differently) passes every check.

Every submission is graded exactly as a learner's would be, through one WorkerPool and grader.judge.grade.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from grader.problems import PROBLEMS_DIR, MutantError, Problem, ProblemError, load_problem, parse_mutant
from grader.report import Report

if TYPE_CHECKING:
    from grader.pool import WorkerPool

Grade = Callable[[Problem, str], Report]  # grade one submission's source with the self-test's pool


# ------------------------------------------------------------------------------------------------ results


@dataclass
class MutantVerdict:
    """How the battery treated one known-wrong solution."""

    name: str
    caught_by: str | None  # id of the first required check that failed, in battery order
    failed_checks: int  # how many checks (required or advisory) failed
    trouble: str = ""  # why this mutant makes the problem unsound, if it does

    @property
    def caught(self) -> bool:
        return self.caught_by is not None and not self.trouble


@dataclass
class ProblemVerdict:
    """Everything the self-test found about one problem folder; sound when `failures` is empty."""

    folder: Path
    slug: str = ""
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    mutants: list[MutantVerdict] = field(default_factory=list)
    loaded: bool = False
    reference_ms: float | None = None
    budget_s: float | None = None

    @property
    def sound(self) -> bool:
        return not self.failures


# --------------------------------------------------------------------------------------------- the runner


def problem_folders(problems_dir: Path = PROBLEMS_DIR) -> list[Path]:
    """Every folder `--all` covers: the same folders the web app tries to list (hidden and _private skipped)."""
    if not problems_dir.is_dir():
        return []
    return sorted(p for p in problems_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def run_selftest(
    folders: list[Path], *, unsafe: bool, stream: TextIO, color: bool = False, pool: WorkerPool | None = None
) -> bool:
    """Self-test every folder, printing a report per problem and a final line. True when all are sound.

    Grades through `pool` when given (tests share one warm pool), else through one WorkerPool of its own."""
    out = _Printer(stream, color)
    loaded: list[tuple[ProblemVerdict, Problem | None]] = [_load(folder) for folder in folders]
    if any(problem is not None for _, problem in loaded):
        from grader.sandbox import SandboxUnavailable

        try:
            with contextlib.ExitStack() as stack:
                if pool is None:
                    from grader.pool import WorkerPool

                    pool = stack.enter_context(WorkerPool(size=1, unsafe=unsafe))
                _examine_all(loaded, pool, out)
        except SandboxUnavailable as exc:
            out.line(out.red(f"selftest: cannot start a sandbox: {exc}"))
            out.line("  (on a development machine without user namespaces, pass --unsafe-no-sandbox)")
            return False
    else:
        for verdict, _ in loaded:
            _print_verdict(verdict, out)
    return _print_summary([verdict for verdict, _ in loaded], out)


def _examine_all(loaded: list[tuple[ProblemVerdict, Problem | None]], pool: WorkerPool, out: _Printer) -> None:
    from grader.judge import grade

    for verdict, problem in loaded:
        if problem is not None:
            _examine(problem, verdict, lambda p, code: grade(p, code, pool=pool), out)
        _print_verdict(verdict, out)


def _load(folder: Path) -> tuple[ProblemVerdict, Problem | None]:
    verdict = ProblemVerdict(folder=folder, slug=folder.name)
    try:
        problem = load_problem(folder)
    except (ProblemError, ValueError) as exc:  # collect_checks raises ValueError for a duplicated check id
        verdict.failures.append(f"does not load:\n{exc}")
        return verdict, None
    verdict.slug = problem.slug
    verdict.loaded = True
    verdict.budget_s = problem.limits.total_timeout_s
    return verdict, problem


def _examine(problem: Problem, verdict: ProblemVerdict, grade: Grade, out: _Printer) -> None:
    out.line(f"{out.bold(problem.slug)}  ({problem.folder})")
    first = _graded(problem, problem.reference_source(), "the reference", grade, verdict)
    second = _graded(problem, problem.reference_source(), "the reference (second run)", grade, verdict)
    if first is not None:
        _examine_reference(first, verdict, out)
    if first is not None and second is not None:
        _examine_determinism(first, second, verdict, out)
    _examine_starter(problem, grade, verdict, out)
    _examine_mutants(problem, grade, verdict, out)
    _examine_variants(problem, grade, verdict, out)


def _graded(problem: Problem, code: str, what: str, grade: Grade, verdict: ProblemVerdict) -> Report | None:
    try:
        return grade(problem, code)
    except Exception as exc:  # a grader bug: report it against this problem and carry on with the rest
        verdict.failures.append(f"the grader itself failed while grading {what}: {type(exc).__name__}: {exc}")
        return None


# ------------------------------------------------------------------------------------------------ stages


def _examine_reference(report: Report, verdict: ProblemVerdict, out: _Printer) -> None:
    verdict.reference_ms = report.duration_ms
    budget_ms = (verdict.budget_s or 0.0) * 1000
    bad = [c for c in report.checks if c.status != "passed"]
    problems = []
    if report.error is not None:
        problems.append(f"the reference could not be graded ({report.error.kind}): {report.error.message}")
    problems += [f"{c.id} {c.status}: {_first_line(c.message)}" for c in bad]
    slowest = max(report.checks, key=lambda c: c.duration_ms, default=None)
    timing = f"{report.duration_ms:.0f} ms of a {verdict.budget_s:g} s budget"
    if slowest is not None:
        timing += f"; slowest check {slowest.id} {slowest.duration_ms:.0f} ms"
    if problems:
        verdict.failures.append("the reference must pass every check:\n" + "\n".join(problems))
        out.stage("reference", False, f"{len(report.checks) - len(bad)}/{len(report.checks)} checks pass", problems)
    else:
        out.stage("reference", True, f"passes all {len(report.checks)} checks")
    within = report.duration_ms <= budget_ms
    if not within:
        verdict.failures.append(
            f"the battery took {report.duration_ms:.0f} ms on the reference, over total_timeout_s = "
            f"{verdict.budget_s:g} s: a correct learner solution would time out; speed up the checks or raise "
            "[limits] total_timeout_s"
        )
    elif report.duration_ms > budget_ms / 2:
        verdict.warnings.append(f"the battery uses {report.duration_ms / budget_ms:.0%} of its time budget")
    out.stage("time budget", within, timing)


def _examine_determinism(first: Report, second: Report, verdict: ProblemVerdict, out: _Printer) -> None:
    before = {c.id: (c.status, c.message) for c in first.checks}
    after = {c.id: (c.status, c.message) for c in second.checks}
    differences = []
    for check_id in [*before, *(check_id for check_id in after if check_id not in before)]:
        if before.get(check_id) != after.get(check_id):
            was, now = before.get(check_id, ("missing", "")), after.get(check_id, ("missing", ""))
            differences.append(
                f"{check_id}: run 1 {was[0]} {_quote(was[1])}, run 2 {now[0]} {_quote(now[1])}"
            )
    if differences:
        verdict.failures.append(
            "flaky checks: grading the reference twice gave different verdicts (seed every random input, "
            "e.g. torch.Generator().manual_seed(n), and keep timings out of messages):\n" + "\n".join(differences)
        )
        out.stage("determinism", False, f"{len(differences)} check(s) differ between two runs", differences)
    else:
        out.stage("determinism", True, f"two runs of the reference agree on all {len(first.checks)} checks")


def _examine_starter(problem: Problem, grade: Grade, verdict: ProblemVerdict, out: _Printer) -> None:
    report = _graded(problem, problem.starter, "the starter", grade, verdict)
    if report is None:
        return
    problems = []
    if report.error is not None:
        where = f" (line {report.error.line})" if report.error.line else ""
        problems.append(f"the starter must load and run: {report.error.kind} error{where}: {report.error.message}")
    if report.solved:
        problems.append("the starter already solves the problem; leave the work to the learner")
    problems += [
        f"{c.id} crashed (status error) on the starter: {_first_line(c.message)}"
        for c in report.checks
        if c.status == "error"
    ]
    failed = [c for c in report.checks if c.status == "failed"]
    if problems:
        verdict.failures.append("the starter must fail cleanly:\n" + "\n".join(problems))
        out.stage("starter", False, "does not fail cleanly", problems)
        return
    example = f"; e.g. {failed[0].id}: {_first_line(failed[0].message)}" if failed else ""
    out.stage("starter", True, f"loads and fails {len(failed)} of {len(report.checks)} checks{example}")


def _examine_mutants(problem: Problem, grade: Grade, verdict: ProblemVerdict, out: _Printer) -> None:
    paths = problem.mutants()
    if not paths:
        verdict.failures.append("no mutants: add known-wrong solutions to mutants/ to prove the checks catch them")
        out.stage("mutants", False, "mutants/ is empty")
        return
    reference = problem.reference_source()
    for path in paths:
        try:
            parsed = parse_mutant(path, reference)
        except MutantError as exc:
            verdict.mutants.append(MutantVerdict(name=path.name, caught_by=None, failed_checks=0,
                                                 trouble=f"malformed: {exc}"))
            continue
        report = _graded(problem, parsed.code, f"mutant {path.name}", grade, verdict)
        if report is not None:
            verdict.mutants.append(_judge_mutant(path.name, report))
    uncaught = [m for m in verdict.mutants if not m.caught]
    for mutant in uncaught:
        verdict.failures.append(f"mutant {mutant.name}: {mutant.trouble or 'no required check caught it'}")
    caught = len(verdict.mutants) - len(uncaught)
    out.stage("mutants", not uncaught, f"{caught}/{len(paths)} caught by a required check")
    out.table(
        ("mutant", "first required check that caught it", "checks failed"),
        [
            (m.name, m.caught_by or "NOT CAUGHT", str(m.failed_checks)) if not m.trouble
            else (m.name, f"{m.caught_by or 'NOT CAUGHT'}  ({m.trouble})", str(m.failed_checks))
            for m in verdict.mutants
        ],
        bad={i for i, m in enumerate(verdict.mutants) if not m.caught},
    )


def _judge_mutant(name: str, report: Report) -> MutantVerdict:
    caught_by = next((c.id for c in report.checks if c.required and c.status == "failed"), None)
    failed = sum(c.status == "failed" for c in report.checks)
    trouble = ""
    crashed = [c for c in report.checks if c.status == "error"]
    if report.error is not None and report.error.kind in ("load", "sandbox", "grader"):
        # A mutant that does not load (or that broke the grader) proves nothing about the checks.
        trouble = f"{report.error.kind} error: {_first_line(report.error.message)}"
    elif crashed:
        trouble = f"check {crashed[0].id} crashed (status error) instead of failing: {_first_line(crashed[0].message)}"
    elif caught_by is None:
        advisory = [c.id for c in report.checks if c.status == "failed"]
        trouble = "no required check caught it" + (f" (only advisory: {', '.join(advisory)})" if advisory else "")
    return MutantVerdict(name=name, caught_by=caught_by, failed_checks=failed, trouble=trouble)


def _examine_variants(problem: Problem, grade: Grade, verdict: ProblemVerdict, out: _Printer) -> None:
    paths = problem.variants()
    if not paths:
        verdict.warnings.append("no variants: add correct solutions written differently to variants/, so the "
                                "checks are proven not to demand the reference's exact arithmetic")
        out.stage("variants", True, "none (add some to variants/)")
        return
    problems = []
    for path in paths:
        report = _graded(problem, path.read_text(), f"variant {path.name}", grade, verdict)
        if report is None:
            continue
        if report.error is not None:
            problems.append(f"{path.name}: {report.error.kind} error: {_first_line(report.error.message)}")
        problems += [f"{path.name}: {c.id} {c.status}: {_first_line(c.message)}"
                     for c in report.checks if c.status != "passed"]
    if problems:
        verdict.failures.append("every variant must pass every check:\n" + "\n".join(problems))
    failing = {line.split(":", 1)[0] for line in problems}
    out.stage("variants", not problems, f"{len(paths) - len(failing)}/{len(paths)} pass every check", problems)


# --------------------------------------------------------------------------------------------- printing


def _print_verdict(verdict: ProblemVerdict, out: _Printer) -> None:
    if not verdict.loaded:
        out.line(f"{out.bold(verdict.slug)}  ({verdict.folder})")
    for warning in verdict.warnings:
        out.line(f"  {out.yellow('warning')}: {warning}")
    if verdict.sound:
        out.line(f"  => {out.green('sound')}\n")
    else:
        out.line(f"  => {out.red('UNSOUND')}: {len(verdict.failures)} problem(s):")
        for failure in verdict.failures:
            out.block(failure, indent="     - ")
        out.line("")


def _print_summary(verdicts: list[ProblemVerdict], out: _Printer) -> bool:
    unsound = [v.slug for v in verdicts if not v.sound]
    if not verdicts:
        out.line(out.red("selftest: no problem folders given"))
        return False
    if unsound:
        summary = f"{len(unsound)} of {len(verdicts)} problem(s) unsound: {', '.join(unsound)}"
        out.line(out.red(f"selftest FAILED: {summary}"))
        return False
    out.line(out.green(f"selftest passed: {len(verdicts)} problem(s) sound"))
    return True


def _first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else ""
    return line if len(line) <= 300 else line[:297] + "..."


def _quote(message: str) -> str:
    return f"({_first_line(message)!r})" if message else ""


class _Printer:
    """Plain text, optionally with ANSI colours; all output goes to one stream."""

    def __init__(self, stream: TextIO, color: bool) -> None:
        self.stream = stream
        self.color = color

    def _paint(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def red(self, text: str) -> str:
        return self._paint("31", text)

    def green(self, text: str) -> str:
        return self._paint("32", text)

    def yellow(self, text: str) -> str:
        return self._paint("33", text)

    def bold(self, text: str) -> str:
        return self._paint("1", text)

    def line(self, text: str) -> None:
        self.stream.write(text + "\n")

    def block(self, text: str, indent: str = "  ") -> None:
        lines = text.splitlines() or [""]
        self.line(indent + lines[0])
        for rest in lines[1:]:
            self.line(" " * len(indent) + "  " + rest)

    def stage(self, name: str, ok: bool, summary: str, details: list[str] | None = None) -> None:
        mark = self.green("ok  ") if ok else self.red("FAIL")
        self.line(f"  {name:<12} {mark} {summary}")
        for detail in details or []:
            self.line(f"      {detail}")

    def table(self, header: tuple[str, ...], rows: list[tuple[str, ...]], bad: set[int]) -> None:
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
        def render(row: tuple[str, ...]) -> str:
            cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=False)]
            return "      " + "  ".join([*cells, row[-1]]).rstrip()
        self.line(render(header))
        for index, row in enumerate(rows):
            text = render(row)
            self.line(self.red(text) if index in bad else text)
