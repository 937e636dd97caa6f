"""The warm pool's cgroup tree across several gradings: every template in a leaf of its own tree, every child in
a fresh job leaf beside it with its own caps, and each child's leaf killed and removed as a whole when its
grading ends (a daemon it detached included). Holds on cgroup v1 and v2; the rules only v2 has (controllers
handed down to inner cgroups, no process in an inner cgroup) are checked where the pool runs on v2."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from grader.cgroups import CONTROLLERS, UNIFIED
from grader.judge import grade
from grader.launch import CGROUP_SLACK_BYTES, TEMPLATE_PIDS
from grader.limits import Limits
from grader.pool import WorkerPool
from grader.problems import Problem
from tests.hostile.conftest import wait_until_all_idle

# Detaches a grandchild that would outlive its grading if the job's cgroup were not killed whole.
DAEMON_ADDER = '''
import os, time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            time.sleep(1)
    os._exit(0)

def add_one(x):
    return x + 1

def scaled_sum(x, factor):
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        raise TypeError("factor must be a Python number")
    return x.sum() * factor
'''


def _read(path: Path) -> str:
    return path.read_text().strip()


def _procs(path: Path) -> list[int]:
    return [int(pid) for pid in _read(path / "cgroup.procs").split()]


def _job_dirs(pool: WorkerPool) -> set[Path]:
    root = _pids_root(pool)
    return {job for template in root.iterdir() if template.is_dir()
            for job in template.iterdir() if job.is_dir() and job.name.startswith("job")}


def _pids_root(pool: WorkerPool) -> Path:
    group = pool._cgroup  # noqa: SLF001 - the test looks where the pool keeps its processes
    assert group is not None, "a sandboxed pool has a cgroup"
    return group.paths[UNIFIED] if group.version == 2 else group.paths["pids"]


def assert_tree_shape(pool: WorkerPool, problem: Problem) -> None:
    """Templates in leaves, inner cgroups empty and capped, the waiting child's leaf capped for one child (forked
    ahead under the defaults, or under the limits of the problem its template graded last)."""
    group = pool._cgroup  # noqa: SLF001
    assert group is not None
    root = _pids_root(pool)
    caps = {(limits.max_processes, limits.memory_mb * 1024 * 1024 + CGROUP_SLACK_BYTES)
            for limits in (Limits(), problem.limits)}
    templates = [p for p in root.iterdir() if p.is_dir()]
    assert len(templates) == pool.size, f"one cgroup per template expected in {root}: {templates}"
    for tree in templates:
        assert _procs(tree) == [], f"processes in the inner cgroup {tree}"
        assert _procs(tree / "template"), f"no template process in the leaf {tree / 'template'}"
        assert _read(tree / "pids.max") == str(TEMPLATE_PIDS)
        for job in (p for p in tree.iterdir() if p.name.startswith("job")):
            assert int(_read(job / "pids.max")) in {pids for pids, _ in caps}, job
        if group.version == 2:
            assert set(CONTROLLERS) <= set(_read(root / "cgroup.subtree_control").split()), root
            assert set(CONTROLLERS) <= set(_read(tree / "cgroup.subtree_control").split()), tree
            assert _read(tree / "memory.max") != "max", f"no memory cap on the template's tree {tree}"
            assert not [p for p in (tree / "template").iterdir() if p.is_dir()], "a template's leaf has no children"
            for job in (p for p in tree.iterdir() if p.name.startswith("job")):
                assert (int(_read(job / "pids.max")), int(_read(job / "memory.max"))) in caps, job


def test_several_gradings_each_run_in_a_fresh_capped_leaf_killed_whole(
    sandbox_pool: WorkerPool, adder: Problem, adder_correct: str, assert_clean: Callable[[WorkerPool], None]
) -> None:
    wait_until_all_idle(sandbox_pool)
    assert_tree_shape(sandbox_pool, adder)
    seen: set[Path] = set()
    for code in (DAEMON_ADDER, adder_correct, DAEMON_ADDER, adder_correct):
        before = _job_dirs(sandbox_pool)
        seen |= before
        report = grade(adder, code, pool=sandbox_pool)
        assert report.solved, report.model_dump_json()
        wait_until_all_idle(sandbox_pool)
        used = before - _job_dirs(sandbox_pool)
        # The child that graded is gone with its whole leaf (its detached daemon with it: rmdir fails while a
        # cgroup holds a process); its template forked a fresh child into a new leaf.
        assert used, f"no job cgroup was used and removed: {sorted(before)}"
        assert not any(path.exists() for path in used), used
        assert_tree_shape(sandbox_pool, adder)
        assert_clean(sandbox_pool)
    assert len(seen | _job_dirs(sandbox_pool)) >= 4 + sandbox_pool.size, "each grading needs a leaf of its own"
