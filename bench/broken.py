"""The "broken code" row of `make bench`: how long a learner waits for the report when their code misbehaves.

Each case is the problem's reference with one or more functions replaced by broken ones (appended at the end of
the file: a later `def` wins), graded cold through the CLI (`python -m grader grade SLUG FILE --json`), as in
row (b). Targets (issue 12, "fast, precise failure"): every function looping forever gives the full report
within 45 s; a single broken function within its call limit + 10 s. Timings are measured here, never in tests:
they depend on the machine.

`bench_first_failure` measures what a learner watching the page waits for: a looping function graded on a warm
pool (as the web app grades), the time from the start of the grading until the first failing verdict is handed
to `on_check` (the moment the app publishes it on the event stream). Target: the call limit + 2 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from grader import CheckResult, WorkerPool, grade, load_problem

ROOT = Path(__file__).resolve().parent.parent
ALL_LOOP_TARGET_S = 45.0
ONE_BROKEN_SLACK_S = 10.0  # beyond the call limit
FIRST_FAILURE_SLACK_S = 2.0  # beyond the call limit, for the first failing verdict of a looping function


@dataclass(frozen=True)
class BrokenCase:
    name: str
    replacement: str  # Python appended to the reference
    all_functions: bool = False  # every function is broken: the 45 s target, not call limit + 10 s


# Written for MoCo's three functions; the function names are the problem's.
MOCO_CASES = (
    BrokenCase(
        "all three functions loop forever",
        "def moco_loss(query, key, queue, temperature):\n    while True:\n        pass\n\n\n"
        "def momentum_update(query, key, momentum=0.999):\n    while True:\n        pass\n\n\n"
        "def enqueue(queue, keys, pointer):\n    while True:\n        pass\n",
        all_functions=True,
    ),
    BrokenCase("one function loops forever (momentum_update)",
               "def momentum_update(query, key, momentum=0.999):\n    while True:\n        pass\n"),
    BrokenCase("a function returns a 1 GiB tensor (moco_loss)",
               "def moco_loss(query, key, queue, temperature):\n    return torch.ones(2**28)  # float32: 1 GiB\n"),
    BrokenCase("a segmentation fault (enqueue)",
               "import os\nimport signal\n\n\ndef enqueue(queue, keys, pointer):\n"
               "    os.kill(os.getpid(), signal.SIGSEGV)\n"),
    BrokenCase("deep recursion, recursion limit raised (moco_loss)",
               "import sys\n\nsys.setrecursionlimit(10**7)\n\n\n"
               "def moco_loss(query, key, queue, temperature, depth=0):\n"
               "    return moco_loss(query, key, queue, temperature, depth + 1)\n"),
    BrokenCase("an output flood (momentum_update)",
               "def momentum_update(query, key, momentum=0.999):\n    while True:\n        print('x' * 10_000)\n"),
)


@dataclass
class BrokenResult:
    case: str
    wall_s: float
    target_s: float
    statuses: dict[str, int]
    limits: dict[str, int]
    exit_code: int
    load_before: float  # the machine's 1-minute load average when the case started: a busy machine is slower

    @property
    def within_target(self) -> bool:
        return self.wall_s <= self.target_s


def run_case(slug: str, case: BrokenCase, reference: str, call_timeout_s: float) -> BrokenResult:
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="paperlab-broken-") as submission:
        submission.write(reference + "\n\n# --- broken on purpose (bench/broken.py) ---\n" + case.replacement)
        submission.flush()
        load = os.getloadavg()[0]
        started = time.perf_counter()
        completed = subprocess.run(
            [sys.executable, "-m", "grader", "grade", slug, submission.name, "--json"],
            capture_output=True, cwd=ROOT, check=False, text=True,
        )
        wall = time.perf_counter() - started
    statuses: Counter[str] = Counter()
    limits: Counter[str] = Counter()
    try:
        report = json.loads(completed.stdout)
        for check in report.get("checks", []):
            statuses[check["status"]] += 1
            if check.get("limit"):
                limits[check["limit"]] += 1
    except (json.JSONDecodeError, KeyError, TypeError):
        statuses["no report"] += 1
    target = ALL_LOOP_TARGET_S if case.all_functions else call_timeout_s + ONE_BROKEN_SLACK_S
    return BrokenResult(case=case.name, wall_s=round(wall, 1), target_s=target, statuses=dict(statuses),
                        limits=dict(limits), exit_code=completed.returncode, load_before=round(load, 1))


def bench_broken(slug: str = "moco") -> list[BrokenResult]:
    if slug != "moco":
        raise ValueError("the broken-code cases are written for moco's functions")
    problem = load_problem(slug)
    reference = (problem.folder / "reference.py").read_text()
    return [run_case(slug, case, reference, problem.limits.call_timeout_s) for case in MOCO_CASES]


def render_broken(results: list[BrokenResult]) -> str:
    header = f"{'broken code (cold CLI)':<52} {'wall s':>7} {'target s':>9} {'ok':>3} {'load':>5}  verdicts"
    lines = [header, "-" * len(header)]
    for r in results:
        verdicts = ", ".join(f"{n} {status}" for status, n in sorted(r.statuses.items()))
        limits = ", ".join(f"{n} {limit}" for limit, n in sorted(r.limits.items()))
        lines.append(f"{r.case:<52} {r.wall_s:>7.1f} {r.target_s:>9.1f} {'yes' if r.within_target else 'NO':>3} "
                     f"{r.load_before:>5.1f}  "
                     f"{verdicts}" + (f" (limit: {limits})" if limits else ""))
    return "\n".join(lines)


@dataclass
class FirstFailureResult:
    case: str
    first_failure_s: float | None  # None: no check failed (the case is not broken after all)
    target_s: float
    check: str  # the check whose failing verdict came first
    report_s: float  # the whole grading, for comparison
    load_before: float

    @property
    def within_target(self) -> bool:
        return self.first_failure_s is not None and self.first_failure_s <= self.target_s


def time_first_failure(slug: str, case: BrokenCase, pool: WorkerPool) -> FirstFailureResult:
    problem = load_problem(slug)
    code = (problem.folder / "reference.py").read_text() + "\n\n" + case.replacement
    first: list[tuple[float, str]] = []
    load = os.getloadavg()[0]
    started = time.perf_counter()

    def on_check(result: CheckResult) -> None:
        if result.status == "failed" and not first:
            first.append((time.perf_counter() - started, result.id))

    grade(problem, code, pool=pool, on_check=on_check)
    whole = time.perf_counter() - started
    at, check = first[0] if first else (None, "")
    return FirstFailureResult(case=case.name, first_failure_s=None if at is None else round(at, 2),
                              target_s=problem.limits.call_timeout_s + FIRST_FAILURE_SLACK_S, check=check,
                              report_s=round(whole, 2), load_before=round(load, 1))


def bench_first_failure(slug: str = "moco") -> list[FirstFailureResult]:
    """The looping case on a warm pool (started, and warmed by one grading of the reference, before timing)."""
    if slug != "moco":
        raise ValueError("the broken-code cases are written for moco's functions")
    looping = next(case for case in MOCO_CASES if case.name.startswith("one function loops"))
    problem = load_problem(slug)
    with WorkerPool(size=1) as pool:
        grade(problem, (problem.folder / "reference.py").read_text(), pool=pool)  # warm, as a server is
        return [time_first_failure(slug, looping, pool)]


def render_first_failure(results: list[FirstFailureResult]) -> str:
    header = (f"{'first failing verdict streamed (warm pool)':<52} {'first s':>7} {'target s':>9} {'ok':>3} "
              f"{'load':>5}  check (whole report s)")
    lines = [header, "-" * len(header)]
    for r in results:
        first = f"{r.first_failure_s:.1f}" if r.first_failure_s is not None else "-"
        lines.append(f"{r.case:<52} {first:>7} {r.target_s:>9.1f} {'yes' if r.within_target else 'NO':>3} "
                     f"{r.load_before:>5.1f}  {r.check or 'none failed'} ({r.report_s:.1f})")
    return "\n".join(lines)
