"""Shared fixtures for the engine's tests: the adder fixture problem, one warm sandboxed WorkerPool for the whole
session (starting one costs seconds), a helper that grades a code string, and checks that a pool left no
process, cgroup or file behind.

The engine is imported inside the fixtures, not here: every test loads this file, and the engine brings torch
(seconds), which a test of the web app's pages or of the docs never needs."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from grader.pool import WorkerPool
    from grader.problems import Problem
    from grader.report import Report

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
ADDER_DIR = TESTS / "fixtures" / "problems" / "adder"
ADDER_CORRECT = (TESTS / "fixtures" / "problems" / "adder" / "reference.py").read_text()

# A server started by a test (in this process or as a subprocess) does not prepare the whole catalogue behind its
# tests: 10 s of CPU per start on these machines. tests/app/test_prepare.py and tests/grader/test_prepare.py switch
# it on where it is the subject.
os.environ["PAPERLAB_PREPARE_PROBLEMS"] = "0"

# A value only this test process knows: a submission that can read it has reached the host's environment.
HOST_SECRET_NAME = "HOSTILE_TEST_HOST_SECRET"
HOST_SECRET = f"host-secret-{os.getpid()}-d41d8cd98f00"


@pytest.fixture(scope="session")
def adder() -> Problem:
    from grader.problems import load_problem

    return load_problem(ADDER_DIR)


@pytest.fixture(scope="session")
def adder_correct() -> str:
    return ADDER_CORRECT


@pytest.fixture(scope="session")
def sandbox_status() -> str | None:
    """None where bubblewrap and cgroups work here, else the precise reason they do not."""
    from grader.sandbox import probe

    status = probe()
    return None if status.available else status.reason


@pytest.fixture
def need_sandbox(sandbox_status: str | None) -> None:
    if sandbox_status is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to sandbox: {sandbox_status}")
        pytest.skip(f"no sandbox on this machine: {sandbox_status}")


def new_pool(size: int) -> WorkerPool:
    """A started sandboxed pool. Set the host secret first, so a leak through the templates' environment shows."""
    from grader.pool import WorkerPool

    os.environ[HOST_SECRET_NAME] = HOST_SECRET
    return WorkerPool(size=size).start()


@pytest.fixture(scope="session")
def sandbox_pool(sandbox_status: str | None) -> Iterator[WorkerPool]:
    """The session's sandboxed pool of two warm templates, shared by every sandbox test."""
    if sandbox_status is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to sandbox: {sandbox_status}")
        pytest.skip(f"no sandbox on this machine: {sandbox_status}")
    pool = new_pool(2)
    yield pool
    pool.close()
    assert_pool_removed(pool)


@pytest.fixture
def grade_code(adder: Problem, sandbox_pool: WorkerPool) -> Callable[..., Report]:
    """grade_code(code, problem=adder, pool=session pool) -> Report."""
    from grader.judge import grade

    def run(code: str, *, problem: Problem | None = None, pool: WorkerPool | None = None) -> Report:
        return grade(problem or adder, code, pool=pool or sandbox_pool)

    return run


# ------------------------------------------------------------------------------------------------ leftovers


def pool_cgroup_dirs(pool: WorkerPool) -> list[Path]:
    """The pool's own cgroup directories, one per controller (pids, memory)."""
    group = pool._cgroup  # noqa: SLF001 - the test needs to look where the pool keeps its processes
    assert group is not None, "a sandboxed pool has a cgroup"
    return list(group.paths.values())


def _procs(directory: Path) -> list[int]:
    try:
        return [int(pid) for pid in (directory / "cgroup.procs").read_text().split()]
    except FileNotFoundError:
        return []


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _is_bwrap(command: str) -> bool:
    return Path(command.split(" ")[0]).name == "bwrap"


def assert_pool_idle_and_clean(pool: WorkerPool) -> None:
    """Between submissions: each template's cgroup holds bubblewrap and exactly one template process, plus at
    most one job cgroup holding exactly one process, the child forked ahead for the next submission. A child or
    daemon that survived its submission is a forked copy of the template (same command line), so it shows as
    a second process in a job cgroup or as a second job cgroup."""
    for root in pool_cgroup_dirs(pool):
        assert _procs(root) == [], f"processes directly in the pool's cgroup {root}"
        for template in sorted(p for p in root.iterdir() if p.is_dir()):
            subdirs = {p.name: p for p in template.iterdir() if p.is_dir()}
            home = subdirs.pop("template", template)
            commands = [_cmdline(pid) for pid in _procs(home)]
            pythons = [c for c in commands if not _is_bwrap(c)]
            assert len(pythons) == 1 and "worker.py template" in pythons[0], f"{home}: {commands}"
            if home is not template:
                assert _procs(template) == [], f"processes outside the template's leaf cgroup in {template}"
            assert len(subdirs) <= 1, f"job cgroups left behind in {template}: {sorted(subdirs)}"
            for job in subdirs.values():
                waiting = [_cmdline(pid) for pid in _procs(job)]
                assert len(waiting) == 1 and "worker.py template" in waiting[0], f"{job} holds {waiting}"
                assert not any(p.is_dir() for p in job.iterdir()), f"nested cgroups in {job}"


def assert_pool_removed(pool: WorkerPool) -> None:
    """After close(): the pool's cgroups are gone, so none of its processes can be left."""
    for root in pool_cgroup_dirs(pool):
        assert not root.exists(), f"cgroup {root} left behind"


def _parent(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^PPid:\s*(\d+)", status, re.MULTILINE)
    return int(found.group(1)) if found else None


def template_host_pids(pool: WorkerPool) -> list[int]:
    """Host pids of the pool's template Python processes (not bubblewrap, not children). A child the pool forks
    ahead sits in its template's cgroup for a moment before it is moved to its own, with the same command line,
    so a template is told from it by its parent: a child's parent is a template."""
    root = pool_cgroup_dirs(pool)[0]
    pids = []
    for template in sorted(p for p in root.iterdir() if p.is_dir()):
        home = template / "template" if (template / "template").is_dir() else template
        pythons = [pid for pid in _procs(home)
                   if not _is_bwrap(_cmdline(pid)) and "worker.py template" in _cmdline(pid)]
        pids += [pid for pid in pythons if _parent(pid) not in pythons]
    return pids


@pytest.fixture
def assert_clean() -> Callable[[WorkerPool], None]:
    """assert_clean(pool): between submissions, nothing of any child is left in the pool's cgroups."""
    return assert_pool_idle_and_clean


@pytest.fixture
def assert_removed() -> Callable[[WorkerPool], None]:
    """assert_removed(pool): after close(), the pool's cgroups are gone."""
    return assert_pool_removed


@pytest.fixture
def template_pids() -> Callable[[WorkerPool], list[int]]:
    """template_pids(pool): host pids of the pool's template processes."""
    return template_host_pids


@pytest.fixture
def fresh_pool(need_sandbox: None) -> Iterator[Callable[[int], WorkerPool]]:
    """fresh_pool(size): a private sandboxed pool, for tests that break it on purpose; closed and checked after."""
    pools: list[WorkerPool] = []

    def make(size: int = 1) -> WorkerPool:
        pools.append(new_pool(size))
        return pools[-1]

    yield make
    for pool in pools:
        pool.close()
        assert_pool_removed(pool)


@pytest.fixture(autouse=True)
def _reference_cache_of_this_test(tmp_path_factory: pytest.TempPathFactory,
                                  monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The CLI keeps the reference's answers on disk (grader.refcache): each test gets its own directory, so no
    test reads answers another left (or writes into the home directory), and a CLI run inside a test does not
    leave the process keeping answers on disk for the tests after it."""
    monkeypatch.setenv("PAPERLAB_CACHE_DIR", str(tmp_path_factory.mktemp("reference-cache")))
    yield
    refcache = sys.modules.get("grader.refcache")  # imported only by tests that grade: keep app tests torch-free
    if refcache is not None:
        refcache.use_disk(None)
