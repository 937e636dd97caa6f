"""The "broken code" row of `make bench`: how long a learner waits for the report when their code misbehaves.

Each case is the problem's reference with one or more functions replaced by broken ones (appended at the end of
the file: a later `def` wins), graded cold through the CLI (`python -m grader grade SLUG FILE --json`), as in
row (b). Targets (issue 12, "fast, precise failure"): every function looping forever gives the full report
within 45 s; a single broken function within its call limit + 10 s. Timings are measured here, never in tests:
they depend on the machine.
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

from grader import load_problem

ROOT = Path(__file__).resolve().parent.parent
ALL_LOOP_TARGET_S = 45.0
ONE_BROKEN_SLACK_S = 10.0  # beyond the call limit


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
