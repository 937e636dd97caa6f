"""grader.pool.WorkerPool: start, sessions, capacity, memory report, and leaving nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from grader import pool as pool_module
from grader.limits import Limits
from grader.pool import WorkerPool
from grader.problems import Problem
from grader.sandbox import CGROUP_PREFIX, CGROUP_ROOT, SandboxStatus, SandboxUnavailable, remove_stale_cgroups

REPO = Path(__file__).resolve().parents[2]


def test_a_pool_needs_a_template() -> None:
    with pytest.raises(ValueError, match="at least one"):
        WorkerPool(size=0)


def test_sandbox_kind() -> None:
    assert WorkerPool(unsafe=True).sandbox == "none"
    assert WorkerPool().sandbox == "bubblewrap"


def test_start_refuses_without_a_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool_module, "probe", lambda: SandboxStatus(False, "bubblewrap cannot create namespaces"))
    pool = WorkerPool()
    with pytest.raises(SandboxUnavailable, match="bubblewrap cannot create namespaces"):
        pool.start()
    pool.close()


@pytest.mark.sandbox
def test_close_removes_the_pools_scratch_files(tmp_path: Path) -> None:
    # Each template makes a temporary log file and scratch directory; close() must release them, not leave
    # them to the garbage collector (a ResourceWarning, and a directory per template left in /tmp when the
    # process ends abruptly). The script exits with os._exit right after close(), as a killed server would.
    script = textwrap.dedent('''
        import os, sys
        from grader.judge import grade
        from grader.pool import WorkerPool
        from grader.problems import load_problem
        problem = load_problem(sys.argv[1])
        pool = WorkerPool(size=1, unsafe=True).start()
        report = grade(problem, open(sys.argv[2]).read(), pool=pool)
        pool.close()
        print(report.solved, report.sandbox, flush=True)
        os._exit(0)
    ''')
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    completed = subprocess.run(
        [sys.executable, "-c", script, str(REPO / "tests/fixtures/problems/adder"),
         str(REPO / "tests/fixtures/problems/adder/reference.py")],
        cwd=REPO, env={**os.environ, "TMPDIR": str(scratch)}, capture_output=True, text=True, timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert completed.stdout.split() == ["True", "none"]
    assert sorted(p.name for p in scratch.iterdir()) == []


@pytest.mark.sandbox
def test_memory_report_names_each_template(sandbox_pool: WorkerPool) -> None:
    report = sandbox_pool.memory_report()
    assert len(report) == sandbox_pool.size
    assert all(kilobytes > 50_000 for kilobytes in report.values()), report  # each has imported torch


@pytest.mark.sandbox
def test_session_waits_for_a_free_template(sandbox_pool: WorkerPool, adder_correct: str) -> None:
    limits = Limits()
    with sandbox_pool.session(adder_correct, limits), sandbox_pool.session(adder_correct, limits):
        with pytest.raises(SandboxUnavailable, match=r"no worker became free within 0.2 s"):
            with sandbox_pool.session(adder_correct, limits, wait_s=0.2):
                pass


@pytest.mark.sandbox
def test_once_recycled_every_template_is_free_at_once(sandbox_pool: WorkerPool, adder_correct: str) -> None:
    limits = Limits()
    with sandbox_pool.session(adder_correct, limits) as first, sandbox_pool.session(adder_correct, limits) as second:
        assert first.load().ok and second.load().ok  # each session used its child
    assert sandbox_pool.wait_recycled(timeout_s=30)
    with sandbox_pool.session(adder_correct, limits, wait_s=0), sandbox_pool.session(adder_correct, limits, wait_s=0):
        pass


@pytest.mark.sandbox
def test_closing_removes_the_cgroups_and_may_be_repeated(
    fresh_pool: Callable[[int], WorkerPool], assert_removed: Callable[[WorkerPool], None],
    template_pids: Callable[[WorkerPool], list[int]],
) -> None:
    pool = fresh_pool(1)
    (template,) = template_pids(pool)
    pool.close()
    assert_removed(pool)
    assert not Path(f"/proc/{template}").exists() or "Z" in Path(f"/proc/{template}/stat").read_text().split()[2]
    pool.close()


@pytest.mark.sandbox
def test_stale_cgroups_of_dead_graders_are_removed(need_sandbox: None) -> None:
    stale = [CGROUP_ROOT / controller / CGROUP_PREFIX / f"{CGROUP_PREFIX}-999999999-deadbeef" / "z1"
             for controller in ("pids", "memory")]
    for path in stale:
        path.mkdir(parents=True)
    remove_stale_cgroups()
    assert not any(path.parent.exists() for path in stale)


def test_unsandboxed_workers_never_touch_the_hosts_tmp(tmp_path: Path) -> None:
    # Inside the sandbox the template empties its private /tmp between children; outside one, /tmp and
    # /dev/shm are the host's (other programs' files and PostgreSQL's shared memory live there).
    import tempfile

    marker = Path(tempfile.gettempdir()) / f"paperlab-marker-{os.getpid()}"
    marker.write_text("keep me")
    try:
        with WorkerPool(size=1, unsafe=True) as pool:
            for _ in range(2):
                with pool.session("def f():\n    return 1\n", Limits()) as session:
                    assert session.load().ok
        assert marker.read_text() == "keep me"
    finally:
        marker.unlink(missing_ok=True)


@pytest.mark.parametrize(
    ("requested", "available_mb", "expected"),
    [
        pytest.param(4, None, 4, id="unknown-memory-keeps-the-request"),
        pytest.param(4, 24_000, 4, id="plenty"),
        pytest.param(8, 4_000, 2, id="capped-by-memory"),
        pytest.param(4, 500, 1, id="always-at-least-one"),
    ],
)
def test_pool_size_is_capped_by_memory(requested: int, available_mb: int | None, expected: int) -> None:
    assert pool_module.templates_that_fit(requested, child_memory_mb=1024, available_mb=available_mb) == expected


SEED_PROBE = '''
import random
import torch
print("SEEDS", torch.initial_seed(), torch.rand(3, dtype=torch.float64).tolist(), random.random())

def add(a, b):
    raise RuntimeError("probe only")
'''


@pytest.mark.sandbox
@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_a_child_seeds_the_learners_generators_with_the_gradings_seed(
        sandbox_pool: WorkerPool, adder: Problem, seed: int) -> None:
    import random

    import torch

    from grader.judge import grade

    report = grade(adder, SEED_PROBE, pool=sandbox_pool, seed=seed)
    output = report.checks[0].output
    assert output.startswith("SEEDS"), output[:300]
    generator = torch.Generator().manual_seed(seed)
    expected = (f"SEEDS {seed} {torch.rand(3, dtype=torch.float64, generator=generator).tolist()} "
                f"{random.Random(seed).random()}")
    assert output.strip() == expected
