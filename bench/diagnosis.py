"""The "diagnosis" row of `make bench`: extra judge time per failed check, spent naming the known mistake.

When a check fails on a call, the judge runs the problem's mutants on that call's input (grader.diagnose). Here
every mutant of the problem is graded as a submission, in-process (bench.inprocess: the same judge and checks,
no sandbox), and each diagnosis is timed where the judge makes it. The judge computes on one torch thread
(WorkerPool.start sets it; intra-op threads made a tiny softmax cost ~10 ms on busy cores), so this does too.

Two figures per failed check: cold, the cache of mutant results emptied before each submission (the first
learner to fail a check that way pays it), and warm, the same calls diagnosed again (every later learner whose
call has the same input). Target (issue 13): cold p90 < 20 ms on MoCo, on an idle machine. Calls the engine
does not diagnose (the call raised; arguments over the size cap) cost nothing and are counted apart.
"""

from __future__ import annotations

import os
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import torch

from bench.inprocess import InProcessPool
from grader import grade, load_problem

TARGET_P90_MS = 20.0


@dataclass
class DiagnosisResult:
    problem: str
    submissions: int  # mutants graded
    diagnosed: int  # failed checks whose call the engine tried to diagnose
    not_diagnosed: int  # failed checks with a call it skips (raised, too big, no input)
    named: int  # diagnoses that named a mistake
    cold_p50_ms: float
    cold_p90_ms: float
    cold_max_ms: float
    warm_p50_ms: float
    warm_p90_ms: float
    by_function_cold_p90_ms: dict[str, float] = field(default_factory=dict)
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def within_target(self) -> bool:
        return self.cold_p90_ms < TARGET_P90_MS


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def bench_diagnosis(slug: str = "moco") -> DiagnosisResult:
    torch.set_num_threads(1)  # as the judge (grader.pool.WorkerPool.start)
    problem = load_problem(slug)
    diagnoser = problem.diagnoser
    assert diagnoser is not None
    diagnoser.mutants()  # loaded once per process, before any grading: not a failed check's cost
    original = diagnoser.diagnose
    calls: list[Any] = []
    cold: dict[str, list[float]] = defaultdict(list)
    skipped = named = 0

    def timed(call: Any) -> str | None:
        nonlocal skipped, named
        started = time.perf_counter()
        answer = original(call)
        elapsed = (time.perf_counter() - started) * 1000
        if diagnoser.would_try(call):
            cold[call.function].append(elapsed)
            calls.append(call)
            named += answer is not None
        else:
            skipped += 1
        return answer

    load_before = os.getloadavg()
    pool = InProcessPool()
    sources = problem.mutant_sources()
    diagnoser.diagnose = timed  # type: ignore[method-assign]
    try:
        for source in sources:
            diagnoser.forget()  # each submission finds an empty cache: its failures are first failures
            grade(problem, source.code, pool=pool)  # type: ignore[arg-type]
    finally:
        del diagnoser.diagnose  # the instance attribute; the class's method again
    for call in calls:
        diagnoser.diagnose(call)  # the cache held only the last submission's inputs: now it holds them all
    warm = []
    for call in calls:
        started = time.perf_counter()
        diagnoser.diagnose(call)
        warm.append((time.perf_counter() - started) * 1000)
    everything = [ms for times in cold.values() for ms in times]
    return DiagnosisResult(
        problem=slug, submissions=len(sources), diagnosed=len(everything), not_diagnosed=skipped, named=named,
        cold_p50_ms=round(statistics.median(everything), 2) if everything else float("nan"),
        cold_p90_ms=round(_percentile(everything, 0.9), 2), cold_max_ms=round(max(everything, default=0.0), 2),
        warm_p50_ms=round(statistics.median(warm), 3) if warm else float("nan"),
        warm_p90_ms=round(_percentile(warm, 0.9), 3),
        by_function_cold_p90_ms={name: round(_percentile(times, 0.9), 2) for name, times in sorted(cold.items())},
        load_before=tuple(round(x, 2) for x in load_before),  # type: ignore[arg-type]
        load_after=tuple(round(x, 2) for x in os.getloadavg()),  # type: ignore[arg-type]
    )


def render_diagnosis(result: DiagnosisResult) -> str:
    functions = ", ".join(f"{name} {ms:.1f}" for name, ms in result.by_function_cold_p90_ms.items())
    return "\n".join([
        f"diagnosis of failed checks ({result.problem}, {result.submissions} mutants graded in-process, 1 torch "
        f"thread): {result.diagnosed} diagnosed ({result.named} named a mistake), {result.not_diagnosed} skipped",
        f"  cold cache: p50 {result.cold_p50_ms:.1f} ms, p90 {result.cold_p90_ms:.1f} ms, max "
        f"{result.cold_max_ms:.1f} ms (target p90 < {TARGET_P90_MS:.0f} ms: "
        f"{'yes' if result.within_target else 'NO'}); warm cache: p50 {result.warm_p50_ms:.3f} ms, "
        f"p90 {result.warm_p90_ms:.3f} ms",
        f"  cold p90 per function (ms): {functions}",
        f"  load average (1, 5, 15 min) before {result.load_before}, after {result.load_after}",
    ])
