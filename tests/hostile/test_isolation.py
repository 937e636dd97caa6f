"""What a submission can see and reach: not the app, the problems, the host's environment, other processes,
the network, the file system outside its /tmp, nor what another submission left or is writing."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from grader.report import Report
from grader.sandbox import ALLOCATOR_ENV, GRADER_DIR, THP_SETTINGS, WORKER_FILES
from tests.hostile.hostile_support import ADDER_DIR, HOST_SECRET_NAME, REPO, assert_unsolved_within, submission

GradeCode = Callable[..., Report]

PROBE = '''
import glob, json, os, socket

def can_connect(host, port):
    try:
        socket.create_connection((host, port), timeout=2).close()
        return "connected"
    except OSError as exc:
        return type(exc).__name__

def can_write(path):
    try:
        with open(path, "w") as handle:
            handle.write("x")
        return "written"
    except OSError as exc:
        return f"{type(exc).__name__} errno {exc.errno}"

def exists(path):
    return os.path.lexists(path)

found = {
    "exists": {path: exists(path) for path in PATHS},
    "listing": {path: sorted(os.listdir(path)) if os.path.isdir(path) else None for path in LISTED},
    "environ": dict(os.environ),
    "proc": {name: open(f"/proc/{name}/cmdline", "rb").read().decode(errors="replace").replace("\\0", " ")
             for name in os.listdir("/proc") if name.isdigit()},
    "connect": {f"{host}:{port}": can_connect(host, port) for host, port in TARGETS},
    "write": {path: can_write(path) for path in WRITES},
    "uid": os.getuid(),
}
print("PROBE" + json.dumps(found))

def add_one(x):
    raise RuntimeError("probe only")

def scaled_sum(x, factor):
    raise RuntimeError("probe only")
'''


@pytest.fixture
def host_listener() -> Iterator[int]:
    """A server on the host's loopback, so a reachable host port is guaranteed to exist during the probe."""
    server = socket.create_server(("127.0.0.1", 0))
    yield server.getsockname()[1]
    server.close()


def probe(grade_code: GradeCode, **lists: Any) -> dict[str, Any]:
    code = PROBE
    for name, value in lists.items():
        code = code.replace(name, repr(value), 1)
    report = grade_code(code)
    assert_unsolved_within(report, 30)
    output = report.checks[0].output
    assert output.startswith("PROBE"), output[:500]
    found: dict[str, Any] = json.loads(output.removeprefix("PROBE").strip())
    return found


@pytest.fixture
def found(grade_code: GradeCode, host_listener: int) -> dict[str, Any]:
    problem_files = [str(ADDER_DIR / name) for name in ("reference.py", "checks.py", "notes.md", "problem.toml")]
    return probe(
        grade_code,
        PATHS=[str(ADDER_DIR), *problem_files, str(REPO / "problems"), str(REPO / "app"), str(REPO / "tests"),
               str(REPO / "grader"), str(GRADER_DIR / "checks.py"), str(GRADER_DIR / "judge.py"),
               str(REPO / "pyproject.toml"), "/etc/passwd", "/etc/shadow", "/home", "/var", "/run",
               "/var/run/postgresql", "/sys/fs/cgroup", "/tmp/daemon_was_here"],
        LISTED=[str(REPO), "/", "/tmp", "/opt/paperlab", "/opt/paperlab/grader", "/opt/paperlab/grader/protocol",
                "/opt/paperlab/grader/sandboxed", "/sys/kernel", "/sys/kernel/mm/transparent_hugepage"],
        TARGETS=[("127.0.0.1", 5432), ("127.0.0.1", 6379), ("127.0.0.1", host_listener), ("10.0.0.1", 80),
                 ("8.8.8.8", 53), ("1.1.1.1", 443)],
        WRITES=["/usr/evil", "/evil", "/etc/evil", "/opt/paperlab/grader/protocol/framing.py",
                "/opt/paperlab/grader/sandboxed/worker.py", "/opt/paperlab/grader/evil.py",
                f"{REPO}/.venv/evil", "/tmp/ok", "/dev/evil"],
    )


def test_problem_and_app_files_are_not_there(found: dict[str, Any]) -> None:
    visible = [path for path, present in found["exists"].items() if present]
    assert visible == [], f"visible inside the sandbox: {visible}"
    listing = found["listing"]
    # Exactly the worker's files, grader/sandboxed/ and grader/protocol/ (an empty or missing listing fails: the
    # worker could not have run); the repository's own path is test_repository_path_is_not_revealed's.
    assert listing["/opt/paperlab"] == ["grader"]
    assert sorted(listing["/opt/paperlab/grader"]) == ["protocol", "sandboxed"]
    for package in ("protocol", "sandboxed"):
        files = sorted(name.removeprefix(f"{package}/") for name in WORKER_FILES if name.startswith(f"{package}/"))
        assert sorted(listing[f"/opt/paperlab/grader/{package}"]) == files, listing[f"/opt/paperlab/grader/{package}"]
    assert listing["/tmp"] == []


def test_repository_path_is_not_revealed(found: dict[str, Any]) -> None:
    # The submission learns where the app lives on the host (and can list the virtualenv's contents) because
    # the virtualenv is bind-mounted at its host path, creating /work/main as a mount point.
    assert found["listing"][str(REPO)] is None, f"{REPO} exists inside: {found['listing'][str(REPO)]}"


def test_host_environment_is_not_visible(found: dict[str, Any]) -> None:
    secret = os.environ[HOST_SECRET_NAME]  # set in the host process before the pool started
    environ = found["environ"]
    assert HOST_SECRET_NAME not in environ
    assert secret not in json.dumps(environ)
    assert set(environ) <= {"PATH", "HOME", "LANG", "PYTHONDONTWRITEBYTECODE", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                            "PWD", "TORCHINDUCTOR_CACHE_DIR", "LD_LIBRARY_PATH", *ALLOCATOR_ENV}, environ
    assert found["uid"] == 65534


def test_the_child_allocates_as_the_worker_is_set_to(found: dict[str, Any]) -> None:
    """glibc's thresholds fixed and its huge pages, and no 2 MB alignment of large tensors by torch
    (grader.sandbox.ALLOCATOR_ENV)."""
    assert "THP_MEM_ALLOC_ENABLE" not in found["environ"]
    assert {name: found["environ"].get(name) for name in ALLOCATOR_ENV} == dict(ALLOCATOR_ENV)


def test_of_the_kernels_settings_the_child_sees_only_the_huge_page_files_glibc_reads(found: dict[str, Any]) -> None:
    present = sorted(os.path.basename(path) for path in THP_SETTINGS if os.path.exists(path))
    assert found["listing"]["/sys/kernel/mm/transparent_hugepage"] == (present or None)
    assert found["listing"]["/sys/kernel"] == (["mm"] if present else None)


def test_other_processes_are_not_visible(found: dict[str, Any]) -> None:
    processes = found["proc"]
    assert len(processes) <= 4, processes  # the sandbox's init, the template, this child (and /proc/self)
    assert all("pytest" not in command and "postgres" not in command and "redis" not in command
               for command in processes.values()), processes
    assert str(os.getpid()) not in processes or "pytest" not in processes[str(os.getpid())]


def test_network_is_unreachable(found: dict[str, Any], host_listener: int) -> None:
    with socket.create_connection(("127.0.0.1", host_listener), timeout=2):
        pass  # reachable from the host, so "unreachable from inside" means something
    assert "connected" not in found["connect"].values(), found["connect"]


def test_writes_outside_tmp_are_refused(found: dict[str, Any]) -> None:
    written = found["write"]
    assert written.pop("/tmp/ok") == "written"
    assert all(not outcome.startswith("written") for outcome in written.values()), written
    assert written["/usr/evil"] == "OSError errno 30"  # read-only file system
    assert (GRADER_DIR / "protocol" / "framing.py").read_text().startswith('"""Frames: `>II`')
    assert not (REPO / ".venv" / "evil").exists()


def test_daemon_is_killed_and_its_files_do_not_reach_the_next_submission(grade_code: GradeCode) -> None:
    report = grade_code(submission("daemon"))
    statuses = {check.id: check.status for check in report.checks}
    assert statuses["add_one.values"] == "passed"  # the daemon really started
    # The witness runs twice: with two templates, one of the two runs uses the daemon's template.
    for _ in range(2):
        witness = grade_code(submission("daemon_witness"))
        assert_unsolved_within(witness, 30)
        seen = witness.checks[0].output
        assert seen.startswith("WITNESS"), seen
        assert "daemon_was_here" not in seen
        assert seen.strip() == "WITNESS {'tmp': [], 'other_pids': []}", seen
    assert not os.path.exists("/tmp/daemon_was_here")


TMP_SPY = '''
import os, time
TAG = "{tag}"
start = time.time()
with open(f"/tmp/secret-{{TAG}}", "w") as handle:
    handle.write("mine")
seen = set()
while time.time() - start < 2.0:
    seen.update(os.listdir("/tmp"))
    time.sleep(0.01)
print("SPY", TAG, start, time.time(), sorted(seen))

def add_one(x):
    raise RuntimeError("spy only")

def scaled_sum(x, factor):
    raise RuntimeError("spy only")
'''


def test_concurrent_submissions_cannot_see_each_others_tmp(grade_code: GradeCode) -> None:
    reports: dict[str, Report] = {}
    barrier = threading.Barrier(2)

    def run(tag: str) -> None:
        barrier.wait()
        reports[tag] = grade_code(TMP_SPY.format(tag=tag))

    threads = [threading.Thread(target=run, args=(tag,)) for tag in ("alpha", "beta")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    spans = {}
    for tag, report in reports.items():
        words = report.checks[0].output.split(" ", 4)
        assert words[0] == "SPY" and words[1] == tag, report.checks[0].output
        spans[tag] = (float(words[2]), float(words[3]))
        assert words[4].strip() == f"['secret-{tag}']"
    assert set(spans) == {"alpha", "beta"}
    (a_start, a_end), (b_start, b_end) = spans["alpha"], spans["beta"]
    assert a_start < b_end and b_start < a_end, f"the two submissions did not overlap: {spans}"
