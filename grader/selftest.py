"""`python -m grader selftest`: prove that a problem's check battery is sound before learners see it.

A problem is sound when
- problem.toml, the reference and the checks load (errors name the file and line);
- every clause of the contract listed in problem.toml is tested by a required check (a problem that lists no
  clauses gets a warning instead, until it is converted);
- ruff finds nothing in the problem's own files (the starter may keep unused imports), nor errors such as
  undefined names in its mutants (patches as materialised) and variants;
- every banned call names a function that exists (a misspelled ban bans nothing);
- the reference passes every check, within the battery's time budget (limits.total_timeout_s);
- the reference graded twice gets identical verdicts (same status and message for every check): no flaky checks;
- the starter loads and fails cleanly: not solved, no check crashing (status "error"), no load error;
- every file in mutants/ (a known-wrong solution) fails at least one required check, and no check crashes on it;
- every file in variants/ (a correct solution written differently) passes every check.

It also shows the author what learners will meet: the clause x check table, the check x mutant table (with a
warning for every check no mutant fails), and, for a mutant nothing caught, why: grader.uncaught compares it
with the reference on every input the checks used and on random ones like them.

Every submission is graded exactly as a learner's would be, through one WorkerPool and grader.judge.grade.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from grader.problems import PROBLEMS_DIR, Mutant, MutantError, Problem, ProblemError, load_problem, parse_mutant
from grader.report import Report
from grader.uncaught import CallRecorder, Outcome, RecordedCall, compare_mutant

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
    statuses: dict[str, str] = field(default_factory=dict)  # check id -> status, for the check x mutant table

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
    reference_ms: float | None = None  # a warm grading of the reference
    reference_cold_ms: float | None = None  # the first grading in a fresh process
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
    from grader.sandbox import SandboxUnavailable

    out = _Printer(stream, color)
    try:
        loaded = selftest_verdicts(folders, unsafe=unsafe, stream=stream, color=color, pool=pool)
    except SandboxUnavailable as exc:
        out.line(out.red(f"selftest: cannot start a sandbox: {exc}"))
        out.line("  (on a development machine without user namespaces, pass --unsafe-no-sandbox)")
        return False
    return _print_summary([verdict for verdict, _ in loaded], out)


def selftest_verdicts(
    folders: list[Path], *, unsafe: bool, stream: TextIO, color: bool = False, pool: WorkerPool | None = None
) -> list[tuple[ProblemVerdict, Problem | None]]:
    """Self-test every folder, printing a report per problem; each folder's verdict, with its problem when it
    loaded. Raises SandboxUnavailable when no sandbox can be made (and `unsafe` is off)."""
    out = _Printer(stream, color)
    loaded: list[tuple[ProblemVerdict, Problem | None]] = [_load(folder) for folder in folders]
    if any(problem is not None for _, problem in loaded):
        with contextlib.ExitStack() as stack:
            if pool is None:
                from grader.pool import WorkerPool

                pool = stack.enter_context(WorkerPool(size=1, unsafe=unsafe))
            _examine_all(loaded, pool, out)
    else:
        for verdict, _ in loaded:
            _print_verdict(verdict, out)
    return loaded


def verdict_summary(verdict: ProblemVerdict, problem: Problem | None) -> dict[str, Any]:
    """A verdict as plain data (`selftest --json`, the author banner): sound or not and why, the clause x check
    table, and each mutant with the checks that failed on it."""
    checks = problem.checks if problem is not None else ()
    stated = [] if problem is None else [*(("contract", c.id, c.text) for c in problem.generated_clauses),
                                         *(("hand", c.id, c.text) for c in problem.clauses)]
    clauses = [
        {"id": clause_id, "text": text, "source": source,
         "required": [c.id for c in checks if c.required and clause_id in c.clauses],
         "advisory": [c.id for c in checks if not c.required and clause_id in c.clauses]}
        for source, clause_id, text in stated
    ]
    return {
        "slug": verdict.slug,
        "sound": verdict.sound,
        "loaded": verdict.loaded,
        "failures": list(verdict.failures),
        "warnings": list(verdict.warnings),
        "reference_ms": verdict.reference_ms,
        "reference_cold_ms": verdict.reference_cold_ms,
        "budget_s": verdict.budget_s,
        "checks": [{"id": c.id, "title": c.title, "required": c.required, "clauses": list(c.clauses)}
                   for c in (problem.checks if problem is not None else ())],
        "clauses": clauses,
        "mutants": [
            {"name": m.name, "caught": m.caught, "caught_by": m.caught_by, "failed_checks": m.failed_checks,
             "trouble": m.trouble, "failed": [check for check, status in m.statuses.items() if status == "failed"]}
            for m in verdict.mutants
        ],
    }


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
    _examine_clauses(problem, verdict, out)
    _examine_lint(problem, verdict, out)
    _examine_banned_calls(problem, verdict, out)
    _examine_hints(problem, verdict)
    recorder = CallRecorder()  # the first run also records the checks' inputs, for uncaught mutants
    with recorder.active():
        first = _graded(problem, problem.reference_source(), "the reference", grade, verdict)
    # The second run is a warm one (inputs drawn and reference answers computed already), as a learner's grading
    # on a running server is: the time the problem costs.
    second = _graded(problem, problem.reference_source(), "the reference (second run)", grade, verdict)
    if first is not None:
        _examine_reference(first, verdict, out, warm=second)
    if first is not None and second is not None:
        _examine_determinism(first, second, verdict, out)
    _examine_starter(problem, grade, verdict, out)
    _examine_mutants(problem, grade, verdict, out, recorder)
    _examine_variants(problem, grade, verdict, out)
    _examine_solution(problem, grade, verdict, out)


def _graded(problem: Problem, code: str, what: str, grade: Grade, verdict: ProblemVerdict) -> Report | None:
    try:
        return grade(problem, code)
    except Exception as exc:  # a grader bug: report it against this problem and carry on with the rest
        verdict.failures.append(f"the grader itself failed while grading {what}: {type(exc).__name__}: {exc}")
        return None


# ------------------------------------------------------------------------------------------------ stages


def _examine_clauses(problem: Problem, verdict: ProblemVerdict, out: _Printer) -> None:
    """The clause x check table: which checks test each clause of the contract, the declared contract's clauses
    (covered by the generic battery) and the hand-written ones (covered by checks.py)."""
    if not problem.clauses and not problem.generated_clauses:
        verdict.warnings.append("problem.toml lists no [[clauses]] and declares no contract: declare each function's "
                                "args and result, list what the declaration cannot say as clauses, and let each "
                                "check name the ones it tests (@check(..., clauses=[...]))")
        out.stage("clauses", True, "none listed in problem.toml (see the warning below)")
        return
    undeclared = [f.name for f in problem.spec.functions if f.contract is None]
    if undeclared:
        verdict.warnings.append(f"no contract declared for {', '.join(undeclared)}: declare its args and result in "
                                "problem.toml so the generic battery covers it (docs/authoring.md, The contract)")
    rows, untested = [], []
    for source, clause_id in [*(("contract", c.id) for c in problem.generated_clauses),
                              *(("hand", c.id) for c in problem.clauses)]:
        testers = [c for c in problem.checks if clause_id in c.clauses]
        required = [c.id for c in testers if c.required]
        advisory = [c.id for c in testers if not c.required]
        if not required:
            untested.append(clause_id)
        rows.append((clause_id, source, ", ".join(required) or "NONE", ", ".join(advisory) or "-"))
    silent = [c.id for c in problem.checks if c.required and not c.clauses]  # an advisory one may test none
    if silent:
        verdict.warnings.append(f"required checks that name no clause (so the table cannot show what they test): "
                                f"{', '.join(silent)}")
    if untested:
        verdict.failures.append(
            f"clauses no required check tests: {', '.join(untested)}; write a check for each, or name the clause "
            "in the clauses=[...] of a required check that already tests it")
    total = len(rows)
    generic = len(problem.generated_clauses)
    out.stage("clauses", not untested, f"{total - len(untested)}/{total} clauses tested by a required check "
                                       f"({generic} from the declared contract, {total - generic} by hand)")
    out.table(("clause", "source", "required checks", "advisory checks"), rows,
              bad={i for i, row in enumerate(rows) if row[2] == "NONE"})


# The repository's rules, spelled out so a problem folder outside the repository is linted the same way.
LINT_ARGS = ("--isolated", "--no-cache", "--output-format", "concise", "--line-length", "120",
             "--target-version", "py311", "--select", "E,F,W,B,I,UP,T20", "--ignore", "E731",
             "--config", "lint.isort.known-first-party=['grader', 'helpers']",  # a problem's helpers.py
             # The starter keeps the imports the learner will need (and may print, to debug); the "Try it" example
             # prints by design and calls the learner's functions, defined by the code it runs after.
             "--config", 'lint.per-file-ignores={"starter.py"=["F401","T201"], "helpers.py"=["T201"], '
                         '"scratch.py"=["T201","F821"]}')
# Mutants and variants are deliberately odd code: only errors (undefined names and the like) count, not style,
# not unused imports or variables (a bug may leave one), not redefinitions (a patch redefines on purpose).
LENIENT_LINT_ARGS = ("--isolated", "--no-cache", "--output-format", "concise", "--target-version", "py311",
                     "--select", "F", "--ignore", "F401,F811,F841")


def lint_problem(problem: Problem) -> list[str] | None:
    """ruff's findings over the problem folder, as 'path:line:col: CODE message'; None when ruff is missing."""
    if importlib.util.find_spec("ruff") is None:
        return None
    own = _ruff([*LINT_ARGS, "--extend-exclude", "mutants,variants", "."], problem.folder)
    with tempfile.TemporaryDirectory(prefix="paperlab-lint-") as scratch:
        offsets = _write_materialised(problem, Path(scratch))
        lenient = _ruff([*LENIENT_LINT_ARGS, "."], Path(scratch)) if offsets else []
    return own + [_patch_line(finding, offsets) for finding in lenient]


def _ruff(args: list[str], cwd: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "ruff", "check", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)
    if done.returncode not in (0, 1):
        return [f"ruff failed: {(done.stderr or done.stdout).strip()}"]
    return [line.replace(" [*]", "") for line in done.stdout.splitlines() if re.match(r"^\S+:\d+:\d+: ", line)]


def _write_materialised(problem: Problem, scratch: Path) -> dict[str, int]:
    """Mutants (patches applied) and variants under scratch/; returns, per relative path, how many lines of the
    file come before its own text (the reference, for a patch)."""
    offsets: dict[str, int] = {}
    reference = problem.reference_source()
    for kind, paths in (("mutants", problem.mutants()), ("variants", problem.variants())):
        (scratch / kind).mkdir()
        for path in paths:
            relative = f"{kind}/{path.name}"
            try:
                code = parse_mutant(path, reference).code if kind == "mutants" else path.read_text()
            except MutantError:
                continue  # reported by the mutant stage, with its line
            (scratch / relative).write_text(code)
            own = path.read_text()
            offsets[relative] = len(code.splitlines()) - len(own.splitlines()) if code.endswith(own) else 0
    return offsets


def _patch_line(finding: str, offsets: dict[str, int]) -> str:
    """Line numbers of a materialised patch, back to the patch file's own."""
    match = re.match(r"^(\S+?):(\d+):(\d+): (.*)$", finding)
    if match is None:
        return finding
    path, line, column, message = match[1], int(match[2]), match[3], match[4]
    offset = offsets.get(path, 0)
    if line <= offset:
        return f"{path}: (in the reference it is appended to, line {line}): {message}"
    return f"{path}:{line - offset}:{column}: {message}"


def _examine_lint(problem: Problem, verdict: ProblemVerdict, out: _Printer) -> None:
    findings = lint_problem(problem)
    if findings is None:
        verdict.warnings.append("ruff is not installed, so the problem folder was not linted")
        out.stage("lint", True, "skipped (no ruff)")
        return
    if findings:
        verdict.failures.append("ruff (run `python -m ruff check --fix` in the folder for the fixable ones):\n"
                                + "\n".join(findings))
    out.stage("lint", not findings, f"{len(findings)} finding(s)" if findings else "ruff finds nothing", findings)


def resolve_dotted(name: str) -> bool:
    """Whether a dotted name such as 'torch.nn.functional.softmax' names something that exists here."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return callable(target)
    return False


def _examine_banned_calls(problem: Problem, verdict: ProblemVerdict, out: _Printer) -> None:
    if not problem.banned_calls:
        return
    missing = [name for name in problem.banned_calls if not resolve_dotted(name)]
    if missing:
        verdict.failures.append(f"banned_calls names what does not exist here: {', '.join(missing)}; a "
                                "misspelled ban bans nothing")
    out.stage("banned calls", not missing, f"{len(problem.banned_calls) - len(missing)}/{len(problem.banned_calls)}"
              f" name a function: {', '.join(problem.banned_calls)}")


def _examine_hints(problem: Problem, verdict: ProblemVerdict) -> None:
    if not problem.hints:
        verdict.warnings.append("no [[hints]] in problem.toml: give learners two or three progressive hints, each "
                                "naming an idea, not code")


def _examine_reference(report: Report, verdict: ProblemVerdict, out: _Printer, *, warm: Report | None = None) -> None:
    """The reference passes every check, within the budget even on a cold grading (a fresh process, the first of
    its problem: inputs drawn, reference answers computed); the warm time is what a grading costs afterwards."""
    verdict.reference_ms = warm.duration_ms if warm is not None else report.duration_ms
    verdict.reference_cold_ms = report.duration_ms
    budget_ms = (verdict.budget_s or 0.0) * 1000
    bad = [c for c in report.checks if c.status != "passed"]
    problems = []
    if report.error is not None:
        problems.append(f"the reference could not be graded ({report.error.kind}): {report.error.message}")
    problems += [f"{c.id} {c.status}: {_first_line(c.message)}" for c in bad]
    timing = f"{report.duration_ms:.0f} ms of a {verdict.budget_s:g} s budget"
    if warm is not None:
        timing = f"{report.duration_ms:.0f} ms cold, {warm.duration_ms:.0f} ms warm, of a {verdict.budget_s:g} s budget"
    slowest = max((warm or report).checks, key=lambda c: c.duration_ms, default=None)  # the one worth speeding up
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


def _examine_mutants(
    problem: Problem, grade: Grade, verdict: ProblemVerdict, out: _Printer, recorder: CallRecorder | None = None
) -> None:
    paths = problem.mutants()
    if not paths:
        verdict.failures.append("no mutants: add known-wrong solutions to mutants/ to prove the checks catch them")
        out.stage("mutants", False, "mutants/ is empty")
        return
    reference = problem.reference_source()
    parsed: dict[str, Mutant] = {}
    for path in paths:
        try:
            parsed[path.name] = parse_mutant(path, reference)
        except MutantError as exc:
            verdict.mutants.append(MutantVerdict(name=path.name, caught_by=None, failed_checks=0,
                                                 trouble=f"malformed: {exc}"))
            continue
        report = _graded(problem, parsed[path.name].code, f"mutant {path.name}", grade, verdict)
        if report is not None:
            verdict.mutants.append(_judge_mutant(path.name, report))
    _explain_uncaught(problem, verdict, parsed, recorder)
    _examine_corpus(problem, parsed, verdict)
    uncaught = [m for m in verdict.mutants if not m.caught]
    for mutant in uncaught:
        verdict.failures.append(f"mutant {mutant.name}: {mutant.trouble or 'no required check caught it'}")
    caught = len(verdict.mutants) - len(uncaught)
    out.stage("mutants", not uncaught, f"{caught}/{len(paths)} caught by a required check")
    out.table(
        ("#", "mutant", "first required check that caught it", "checks failed"),
        [
            (str(i), m.name, m.caught_by or "NOT CAUGHT", str(m.failed_checks)) if not m.trouble
            else (str(i), m.name, f"{m.caught_by or 'NOT CAUGHT'}  ({m.trouble.split(';')[0]})", str(m.failed_checks))
            for i, m in enumerate(verdict.mutants, start=1)
        ],
        bad={i for i, m in enumerate(verdict.mutants) if not m.caught},
    )
    _examine_coverage(problem, verdict, out)


# The catalogue's bar for a finished problem (docs/authoring.md): below it is a warning, not a failure.
CATALOGUE_MUTANTS, CATALOGUE_CITED, CATALOGUE_VARIANTS = 12, 4, 3


def _examine_corpus(problem: Problem, parsed: dict[str, Mutant], verdict: ProblemVerdict) -> None:
    silent = sorted(name for name, mutant in parsed.items() if not mutant.description)
    if silent:
        verdict.warnings.append(f"mutants with no description (the first docstring line is what a learner whose "
                                f"code behaves like it will be told): {', '.join(silent)}")
    cited = sum(bool(m.citation) for m in parsed.values())
    short = []
    if len(parsed) < CATALOGUE_MUTANTS:
        short.append(f"{len(parsed)} mutants (the catalogue asks {CATALOGUE_MUTANTS})")
    if cited < CATALOGUE_CITED:
        short.append(f"{cited} mutants with a Source: line ({CATALOGUE_CITED})")
    if len(problem.variants()) < CATALOGUE_VARIANTS:
        short.append(f"{len(problem.variants())} variants ({CATALOGUE_VARIANTS})")
    if short:
        verdict.warnings.append("below the catalogue's bar for a finished problem: " + ", ".join(short))


def _explain_uncaught(problem: Problem, verdict: ProblemVerdict, parsed: dict[str, Mutant],
                      recorder: CallRecorder | None) -> None:
    """For each mutant no required check caught (and that loaded and crashed nothing): why not."""
    cache: dict[int, Outcome] = {}
    recorded: list[RecordedCall] = recorder.calls if recorder is not None else []
    for mutant in verdict.mutants:
        if mutant.caught_by is not None or not mutant.trouble.startswith("no required check caught it"):
            continue
        if recorder is not None and recorder.unavailable:
            mutant.trouble += f"; cannot say why: {recorder.unavailable}"
            continue
        comparison = compare_mutant(problem, parsed[mutant.name].code, mutant.name, recorded, cache)
        skipped = recorder.skipped if recorder is not None else 0
        left_out = f" ({skipped} larger calls of the checks were left out)" if skipped else ""
        mutant.trouble += f"; {comparison.explain()}{left_out}"


CELL = {"passed": ".", "failed": "x", "error": "E", "skipped": "-"}


def _examine_coverage(problem: Problem, verdict: ProblemVerdict, out: _Printer) -> None:
    """The check x mutant table, and a warning for every check that fails on no mutant."""
    graded = [m for m in verdict.mutants if m.statuses]
    if not graded:
        return
    out.line("      check x mutant: X first required check to fail it, x fails it too, . passes, E crashed, - not run")
    width = max(len(c.id) for c in problem.checks) + 6  # the id, " req", and a gap
    numbers = [str(i) for i, m in enumerate(verdict.mutants, start=1) if m.statuses]
    if any(len(n) > 1 for n in numbers):
        out.line(" " * (6 + width) + "".join(n[-2] if len(n) > 1 else " " for n in numbers))
    out.line(" " * (6 + width) + "".join(n[-1] for n in numbers))
    for item in problem.checks:
        cells = "".join("X" if m.caught_by == item.id else CELL.get(m.statuses.get(item.id, "skipped"), "?")
                        for m in graded)
        failing = sum(m.statuses.get(item.id) == "failed" for m in graded)
        label = f"{item.id} {'req' if item.required else 'adv'}"
        out.line(f"      {label:<{width}}{cells}  {failing}")
        if failing:
            continue
        if item.required:
            verdict.warnings.append(f"required check {item.id} fails on no mutant: the corpus may not test it; add "
                                    "a mutant with the bug it exists to catch")
        else:
            verdict.warnings.append(f"advisory check {item.id} fails on no mutant: no mutant reaches its failure")


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
    return MutantVerdict(name=name, caught_by=caught_by, failed_checks=failed, trouble=trouble,
                         statuses={c.id: c.status for c in report.checks})


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
        # An advisory check the advisory budget cut short decided nothing (the variant is solved either way), and
        # how far a slow variant gets in it depends on how busy the machine is: a warning, never unsoundness.
        cut = [c for c in report.checks if not c.required and c.status == "skipped" and c.limit == "total_time"]
        verdict.warnings += [f"variant {path.name}: advisory check {c.id} was {_first_line(c.message)}; a faster "
                             "variant, or a larger advisory_budget_s, lets it finish" for c in cut]
        problems += [f"{path.name}: {c.id} {c.status}: {_first_line(c.message)}"
                     for c in report.checks if c.status != "passed" and c not in cut]
    if problems:
        verdict.failures.append("every variant must pass every check:\n" + "\n".join(problems))
    failing = {line.split(":", 1)[0] for line in problems}
    out.stage("variants", not problems, f"{len(paths) - len(failing)}/{len(paths)} pass every check", problems)


# Words in the solution learners read that suggest the author thought nobody would: the stage warns on each line.
PRIVATE_LOOKING = re.compile(
    r"hidden from (?:the )?learners?|never shown|not shown to|learners? (?:never|must not|cannot|can't) see"
    r"|do(?:n't| not) (?:show|share|tell)|\bsecret\b|\bprivate\b(?!:)|answer key|\bTODO\b|\bFIXME\b|\bXXX\b|\bHACK\b",
    re.IGNORECASE,
)


def _examine_solution(problem: Problem, grade: Grade, verdict: ProblemVerdict, out: _Printer) -> None:
    """The Solution page shows learners problem.solution_source(): solution.py, else reference.py without its
    `# private:` comments. Warn on each line of it that reads as meant for authors only; a solution.py must also
    solve the problem (learners learn from it)."""
    shown = problem.solution_file
    private = [f"{shown} line {number}: {line.strip()[:100]}"
               for number, line in enumerate(problem.solution_source().splitlines(), start=1)
               if PRIVATE_LOOKING.search(line)]  # fmt: skip
    if private:
        verdict.warnings.append(f"learners read {shown} on the Solution page, and these lines look private (start "
                                "an author's note with '# private:' to strip it, or write solution.py): "
                                + "; ".join(private))
    problems = []
    if shown != "reference.py":
        report = _graded(problem, problem.solution_source(), shown, grade, verdict)
        if report is not None and not report.solved:
            problems = [f"{c.id} {c.status}: {_first_line(c.message)}" for c in report.checks if c.status != "passed"]
            problems = problems or [f"{report.error.kind} error" if report.error else "not solved"]
            verdict.failures.append(f"{shown} is shown to learners as the solution but does not solve the problem:\n"
                                    + "\n".join(problems))
    summary = f"learners read {shown}" + (f"; {len(private)} line(s) look private" if private else "")
    out.stage("solution", not problems, summary, problems + private)


# ----------------------------------------------------------------------------------- `grader messages`


@dataclass(frozen=True)
class MutantMessage:
    """The first thing a learner who wrote this mutant would read."""

    name: str
    description: str  # the bug, as the mutant's docstring says it
    check: str  # id of the first failing check ("" when the submission as a whole failed, or nothing failed)
    title: str
    message: str


def first_failure(report: Report) -> tuple[str, str, str]:
    """(check id, title, message) of the first failure in battery order, as the learner's page lists them."""
    if report.error is not None:
        return "", f"{report.error.kind} error", report.error.message
    failing = next((c for c in report.checks if c.status in ("failed", "error")), None)
    if failing is None:
        return "", "", "no check fails: a learner with this code would be told nothing is wrong"
    return failing.id, failing.title, failing.message


def mutant_messages(problem: Problem, grade: Grade) -> list[MutantMessage]:
    """Grade every mutant (materialised) and keep the first failure each shows. Raises MutantError on a
    malformed mutant, naming its file and line."""
    messages = []
    for name, description, code in problem.mutant_sources():
        check_id, title, message = first_failure(grade(problem, code))
        messages.append(MutantMessage(name, description, check_id, title, message))
    return messages


def render_messages(messages: list[MutantMessage], *, color: bool = False) -> str:
    stream = io.StringIO()
    out = _Printer(stream, color)
    for item in messages:
        out.line(out.bold(item.name) + (f"  ({item.description})" if item.description else ""))
        if item.check:
            out.line(f"  {item.check}: {item.title}")
        elif item.title:
            out.line(f"  {item.title}")
        for line in (item.message or "(no message)").splitlines():
            out.line(f"    | {line}")
        out.line("")
    return stream.getvalue()


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

    def table(self, header: tuple[str, ...], rows: Sequence[tuple[str, ...]], bad: set[int]) -> None:
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
        def render(row: tuple[str, ...]) -> str:
            cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=False)]
            return "      " + "  ".join([*cells, row[-1]]).rstrip()
        self.line(render(header))
        for index, row in enumerate(rows):
            text = render(row)
            self.line(self.red(text) if index in bad else text)
