"""Specification of `make bench`'s row (f) and issue 36's target lines: each problem's row says whether it meets
its target and why not, the heaviest five are named, and the MoCo ratios come from the same run."""

from __future__ import annotations

from bench.catalogue import ProblemRow, heaviest, judged, render_catalogue
from bench.run import Results, Row, issue_targets, render


def problem_row(slug: str, warm: float, floor: float = 100.0, cpu: float = 100.0, failures: int = 0) -> ProblemRow:
    return ProblemRow(slug=slug, checks=10, floor_ms=floor, warm_ms=warm, floor_cpu_ms=cpu, warm_cpu_ms=cpu,
                      failures=failures, verdict="")


def test_a_problem_under_300_ms_warm_meets_its_target_and_one_at_300_does_not() -> None:
    assert judged(problem_row("adamw", 299.9)) == "ok"
    assert judged(problem_row("adamw", 300.0)) == "MISS: warm 300 ms >= 300"
    assert judged(problem_row("adamw", 120.0, failures=2)) == "MISS: 2 unsolved"


def test_moco_is_also_held_to_its_floor_ratios() -> None:
    assert judged(problem_row("moco", 120.0, floor=100.0, cpu=150.0)) == "ok"
    assert judged(problem_row("moco", 121.0, floor=100.0, cpu=150.0)) == "MISS: warm/floor 1.21 > 1.2"
    assert judged(problem_row("moco", 110.0, floor=100.0, cpu=151.0)) == "MISS: CPU/floor 1.51 > 1.5"
    assert judged(problem_row("other", 121.0, floor=100.0, cpu=151.0)) == "ok"  # ratios are moco's alone


def test_the_heaviest_five_are_named_slowest_first() -> None:
    rows = [problem_row(f"p{n}", float(n * 10)) for n in range(8)]
    assert [row.slug for row in heaviest(rows)] == ["p7", "p6", "p5", "p4", "p3"]
    for row in rows:
        row.verdict = judged(row)
    text = render_catalogue(rows)
    assert "heaviest 5: p7 (70 ms), p6 (60 ms), p5 (50 ms), p4 (40 ms), p3 (30 ms)" in text
    assert "targets met: 8 of 8" in text
    assert text.count("\np") == 8  # a row per problem


def test_moco_graded_back_to_back_through_one_template_shows_its_wait() -> None:
    rows = [problem_row("moco", 300.0), problem_row("adamw", 120.0)]
    rows[0].recycle_wait_ms = 25.5
    text = render_catalogue(rows)
    assert "moco, graded back to back through one template" in text and "25.5 ms more, waiting" in text
    assert "adamw, graded back to back" not in text


def bench_row(median: float, throughput: float = 1.0, cpu: float | None = None) -> Row:
    return Row(path="x", runs=3, median_ms=median, p95_ms=median, throughput_per_s=throughput, cpu_ms_per_sub=cpu)


def test_the_issue_targets_are_ratios_of_the_same_run() -> None:
    floor = bench_row(200.0)  # 5 submissions per second on one thread
    warm = [bench_row(240.0, cpu=300.0), bench_row(230.0), bench_row(230.0), bench_row(230.0, throughput=7.5)]
    lines = issue_targets(floor, warm, cold=bench_row(2700.0), import_torch=bench_row(1600.0))
    assert lines["issue 36: warm@1 / floor"] == "1.20 (<= 1.2 target: met)"
    assert lines["issue 36: throughput at 8 clients / floor rate"] == "1.50 (>= 1.5 target: met)"
    assert lines["issue 36: CPU per submission (warm@1) / floor"] == "1.50 (<= 1.5 target: met)"
    assert lines["issue 36: cold CLI / (a cold import of torch + floor)"] == "1.50 (<= 1.5 target: met)"
    slow = issue_targets(floor, [bench_row(300.0, cpu=400.0), bench_row(1.0), bench_row(1.0), bench_row(1.0, 2.0)],
                         cold=bench_row(2701.0), import_torch=bench_row(1600.0))
    assert all("MISSED" in line for line in slow.values())


def test_a_catalogue_only_run_prints_no_empty_main_table() -> None:
    rows = [problem_row("adamw", 120.0)]
    rows[0].verdict = judged(rows[0])
    text = render(Results(machine={"summary": "2 cores"}, problem="all", catalogue=rows))
    assert "median ms" not in text and "adamw" in text and "targets met: 1 of 1" in text
    with_rows = render(Results(machine={"summary": "2 cores"}, problem="moco", rows=[bench_row(200.0)]))
    assert "median ms" in with_rows


def test_the_time_to_the_told_verdict_is_a_column_and_counted_against_the_same_300_ms() -> None:
    rows = [problem_row("ppo_clip", 343.0), problem_row("adamw", 120.0)]
    rows[0].verdict_ms, rows[1].verdict_ms = 245.0, 301.0
    text = render_catalogue(rows)
    assert "verdict ms" in text.splitlines()[0]
    assert "  245.0 " in text and "  301.0 " in text
    assert "under 300 ms: 1 of 2; the slowest: adamw" in text
    assert "verdict told" not in render_catalogue([problem_row("adamw", 120.0)])  # an older result: no column data
