"""`python -m grader grade PROBLEM SUBMISSION.py [--json]`, `selftest [SLUG...|--all]`, `messages SLUG`,
`preview SLUG`, `new SLUG`.

Exit status of `grade`: 0 solved, 1 not solved (including code that crashed, timed out or did not load),
2 usage or problem-folder errors. With --json, stdout carries exactly one JSON report and nothing else.
"""

from __future__ import annotations

import argparse
import atexit
import io
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

# Nothing at the top imports torch: `grade` starts its sandbox first and imports the judge while it warms up.
from grader.warm_up import uses_compiler_stack

if TYPE_CHECKING:
    from grader.launch import EarlyStart
    from grader.problems import Problem
    from grader.report import Report

EXIT_SOLVED, EXIT_NOT_SOLVED, EXIT_USAGE = 0, 1, 2
MAX_SUBMISSION_BYTES = 1024 * 1024

STATUS_MARKS = {"passed": ("PASS", "32"), "failed": ("FAIL", "31"), "error": ("ERR ", "35"), "skipped": ("SKIP", "33")}


def _paint(text: str, color: str, enabled: bool) -> str:
    return f"\033[{color}m{text}\033[0m" if enabled else text


def render_text(report: Report, *, color: bool) -> str:
    lines = []
    if report.sandbox == "none":
        lines.append(_paint("WARNING: graded WITHOUT a sandbox (development mode)", "1;31", color))
    if report.error is not None:
        where = f" (line {report.error.line})" if report.error.line else ""
        lines.append(_paint(f"{report.error.kind} error{where}: {report.error.message}", "1;31", color))
    group = None
    for check in report.checks:
        if check.group != group:
            group = check.group
            lines.append(_paint(f"\n{group}", "1", color))
        mark, code = STATUS_MARKS[check.status]
        advisory = "" if check.required else " (advisory)"
        lines.append(f"  {_paint(mark, code, color)} {check.title}{advisory}  [{check.duration_ms:.0f} ms]")
        if check.status != "passed" and check.message:
            lines.extend(f"       {line}" for line in check.message.splitlines())
    passed = report.passed_count
    verdict = _paint("SOLVED", "1;32", color) if report.solved else _paint("NOT SOLVED", "1;31", color)
    lines.append(f"\n{verdict}: {passed} / {len(report.checks)} checks passed in {report.duration_ms:.0f} ms")
    return "\n".join(lines)


def command_grade(args: argparse.Namespace) -> int:
    code = _read_submission(Path(args.submission))
    if code is None:
        return EXIT_USAGE
    warm_optimisers = uses_compiler_stack(code)
    early = None if args.unsafe_no_sandbox else _start_sandbox_early(warm_optimisers)
    try:
        return _grade(args, code, early, warm_optimisers)
    finally:
        if early is not None:
            early.close()  # when no pool took it over (a problem that did not load); else the pool stopped it


def _read_submission(path: Path) -> str | None:
    """The submission's source, or None after saying why it cannot be graded."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        print(f"error: cannot read submission {path}: {exc.strerror}", file=sys.stderr)
        return None
    if len(data) > MAX_SUBMISSION_BYTES:
        print(f"error: submission {path} is {len(data)} bytes; the limit is {MAX_SUBMISSION_BYTES}", file=sys.stderr)
        return None
    return data.decode("utf-8", errors="replace")


def _start_sandbox_early(warm_optimisers: bool) -> EarlyStart | None:
    """The template's process, started before this process imports torch: the two imports of torch (the
    template's, in its sandbox, and the judge's, here) then overlap instead of adding up."""
    from grader.launch import start_early

    return start_early(warm_optimisers=warm_optimisers)


def _grade(args: argparse.Namespace, code: str, early: EarlyStart | None, warm_optimisers: bool) -> int:
    from grader.judge import grade
    from grader.pool import WorkerPool
    from grader.problems import ProblemError, load_problem
    from grader.refcache import default_cache_dir, use_disk

    use_disk(None if args.no_cache else Path(args.cache_dir) if args.cache_dir else default_cache_dir())
    try:
        problem = load_problem(args.problem)
    except ProblemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not warm_optimisers and problem.helpers and uses_compiler_stack(problem.helpers):
        warm_optimisers = True  # the problem's own helpers, loaded in the child, need it: a template that has it
        if early is not None:
            early.close()
            early = None
    _prepare(problem)
    pool = WorkerPool(size=1, unsafe=args.unsafe_no_sandbox, fork_ahead=False, early=early,
                      warm_optimisers=warm_optimisers)
    try:
        report = grade(problem, code, pool=pool)
    finally:
        pool.close()
    if args.json:
        sys.stdout.write(report.model_dump_json() + "\n")
    else:
        print(render_text(report, color=sys.stdout.isatty() and "NO_COLOR" not in os.environ))
    return EXIT_SOLVED if report.solved else EXIT_NOT_SOLVED


def _prepare(problem: Problem) -> None:
    """Load now what the grading would load on its way: the template started early is still importing torch and
    warming up, and the judge would only wait for it. The reference's answers cached on disk, and Hypothesis
    where a contract is searched (0.1 s)."""
    from grader.heap import settle
    from grader.refcache import answers_for

    answers_for(problem)
    if any(function.contract is not None for function in problem.spec.functions):
        import hypothesis.strategies  # noqa: F401
    settle()  # in the template's shadow too: the grading's collections then walk only what it makes


def command_selftest(args: argparse.Namespace) -> int:
    from grader.problems import PROBLEMS_DIR, ProblemError, resolve_folder
    from grader.selftest import run_selftest

    if args.all:
        folders = sorted(p for p in PROBLEMS_DIR.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    elif args.problems:
        try:
            folders = [resolve_folder(name) for name in args.problems]
        except ProblemError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    else:
        print("error: name one or more problems, or pass --all", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        return _selftest_json(folders, unsafe=args.unsafe_no_sandbox)
    ok = run_selftest(folders, unsafe=args.unsafe_no_sandbox, stream=sys.stdout,
                      color=sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    return 0 if ok else 1


def _selftest_json(folders: list[Path], *, unsafe: bool) -> int:
    """One JSON object on stdout: {"problems": [verdict summaries], "text": the plain-text report}."""
    from grader.sandbox import SandboxUnavailable
    from grader.selftest import selftest_verdicts, verdict_summary

    text = io.StringIO()
    try:
        loaded = selftest_verdicts(folders, unsafe=unsafe, stream=text)
    except SandboxUnavailable as exc:
        print(json.dumps({"problems": [], "text": text.getvalue(), "error": f"cannot start a sandbox: {exc}"}))
        return 1
    summaries = [verdict_summary(verdict, problem) for verdict, problem in loaded]
    print(json.dumps({"problems": summaries, "text": text.getvalue()}))
    return 0 if summaries and all(summary["sound"] for summary in summaries) else 1


def command_messages(args: argparse.Namespace) -> int:
    """Grade every mutant through one warm pool; print the first failing message each would show a learner."""
    import time

    from grader.judge import grade
    from grader.pool import WorkerPool
    from grader.problems import ProblemError, load_problem
    from grader.selftest import mutant_messages, render_messages

    try:
        problem = load_problem(args.problem)
        count = len(problem.mutant_sources())  # a malformed mutant fails here, before a pool starts
        started = time.perf_counter()
        with WorkerPool(size=1, unsafe=args.unsafe_no_sandbox) as pool:
            messages = mutant_messages(problem, lambda p, code: grade(p, code, pool=pool))
    except ProblemError as exc:  # MutantError included: a malformed mutant names its file and line
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    seconds = time.perf_counter() - started
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    print(render_messages(messages, color=color), end="")
    silent = [m.name for m in messages if not m.check and not m.title]
    print(f"{problem.slug}: {count} mutant(s) graded through one warm pool in {seconds:.1f} s")
    if silent:
        print(f"no check fails on: {', '.join(silent)}")
    return 0 if not silent else 1


def command_preview(args: argparse.Namespace) -> int:
    """The statement, hints, contract coverage, the grades of reference and starter, and each mutant's first
    message: the problem as learners will meet it. Exit 0 when nothing needs fixing, 1 otherwise."""
    import shutil

    from grader.judge import grade
    from grader.pool import WorkerPool
    from grader.preview import build_preview, render_preview
    from grader.problems import ProblemError, load_problem

    try:
        problem = load_problem(args.problem)
        problem.mutant_sources()  # a malformed mutant fails here, before a pool starts
        with WorkerPool(size=1, unsafe=args.unsafe_no_sandbox) as pool:
            preview = build_preview(problem, lambda p, code: grade(p, code, pool=pool))
    except ProblemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    width = args.width or min(shutil.get_terminal_size((100, 24)).columns, 120)
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    print(render_preview(preview, width=width, color=color), end="")
    return 0 if not preview.problems_found else 1


def command_new(args: argparse.Namespace) -> int:
    from grader.problems import PROBLEMS_DIR
    from grader.scaffold import ScaffoldError, create_problem

    try:
        folder = create_problem(args.slug, Path(args.problems_dir or PROBLEMS_DIR))
    except ScaffoldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"created {folder}")
    print(f"next: edit its files, then run `python -m grader selftest {args.slug}`")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    grade_parser = commands.add_parser("grade", help="grade one submission file")
    grade_parser.add_argument("problem", help="a slug under problems/ or a path to a problem folder")
    grade_parser.add_argument("submission", help="the learner's Python file")
    grade_parser.add_argument("--json", action="store_true", help="print exactly one JSON report on stdout")
    grade_parser.add_argument("--cache-dir", default=None,
                              help="where the reference's answers are kept between runs (default $PAPERLAB_CACHE_DIR, "
                                   "else $XDG_CACHE_HOME/paperlab, else ~/.cache/paperlab)")
    grade_parser.add_argument("--no-cache", action="store_true", help="compute the reference's answers afresh")
    grade_parser.set_defaults(handler=command_grade)

    selftest_parser = commands.add_parser("selftest", help="prove a problem's checks sound")
    selftest_parser.add_argument("problems", nargs="*", help="slugs or folders")
    selftest_parser.add_argument("--all", action="store_true", help="every folder under problems/")
    selftest_parser.add_argument("--json", action="store_true",
                                 help="print one JSON object: each problem's verdict as data, and the text report")
    selftest_parser.set_defaults(handler=command_selftest)

    messages_parser = commands.add_parser(
        "messages", help="print the first failing message each mutant would show a learner")
    messages_parser.add_argument("problem", help="a slug under problems/ or a path to a problem folder")
    messages_parser.set_defaults(handler=command_messages)

    preview_parser = commands.add_parser(
        "preview", help="show a problem as learners will: statement, grades of reference and starter, mutants")
    preview_parser.add_argument("problem", help="a slug under problems/ or a path to a problem folder")
    preview_parser.add_argument("--width", type=int, default=0, help="wrap the statement at this many columns")
    preview_parser.set_defaults(handler=command_preview)

    for sub in (grade_parser, selftest_parser, messages_parser, preview_parser):
        sub.add_argument("--unsafe-no-sandbox", action="store_true",
                         help="DEVELOPMENT ONLY: run submissions without bubblewrap; reports say sandbox 'none'")

    new_parser = commands.add_parser("new", help="create a problem folder from the template")
    new_parser.add_argument("slug")
    new_parser.add_argument("--problems-dir", default=None, help="default: the repository's problems/")
    new_parser.set_defaults(handler=command_new)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else 0
    return int(args.handler(args))


def _leave(status: int) -> NoReturn:
    """End the process once a command is done, without tearing the interpreter down: freeing torch's modules and
    every object of the judge one by one took a cold `grade` 0.35 s, after its report was out, and nothing a
    finished command needs happens there. The exit hooks still run (a pool is closed by then, its files gone),
    and the output is flushed."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away (`| head`), or a stream closed already
            status = status or 1
    os._exit(status)


if __name__ == "__main__":
    _leave(main())
