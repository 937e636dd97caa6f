"""What the sandbox's pid 1 tells a submission about the host. It used to be bubblewrap, whose command line
names every host path it mounts (the checkout, the virtualenv, the interpreter under the home directory) and
whose stderr was a host temporary file a child could append to."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.judge import grade
from grader.launch import StderrTail
from grader.pool import WorkerPool
from grader.problems import Problem
from grader.report import Report
from grader.sandbox import GRADER_DIR
from tests.hostile.hostile_support import REPO, assert_unsolved_within, submission

GradeCode = Callable[..., Report]

HOST_PATHS = sorted({str(REPO), str(GRADER_DIR), sys.prefix, os.path.realpath(sys.prefix),
                     os.path.realpath(sys.base_prefix), str(Path.home())})


@pytest.fixture(scope="module")
def grade_code(adder: Problem, sandbox_pool: WorkerPool) -> GradeCode:
    """Module-scoped (the shared grade_code is per test): the probe is graded once for every test here."""
    return lambda code, *, problem=None: grade(problem or adder, code, pool=sandbox_pool)


@pytest.fixture(scope="module")
def seen(adder: Problem, grade_code: GradeCode) -> dict[str, Any]:
    """What the probe read, with room for its output (bubblewrap's command line alone is kilobytes)."""
    spec = adder.spec.model_copy(update={"limits": adder.limits.model_copy(update={"output_kb": 64})})
    report = grade_code(submission("init_probe"), problem=dataclasses.replace(adder, spec=spec))
    assert_unsolved_within(report, 30)
    output = report.checks[0].output
    assert output.startswith("INIT"), output[:500]
    return dict(json.loads(output.removeprefix("INIT").strip()))


@pytest.mark.parametrize("source", ["cmdline", "environ", "stderr_target", "parent_cmdline", "parent_environ",
                                    "own_descriptors"])
def test_pid_1_and_the_template_show_no_host_path(seen: dict[str, Any], source: str) -> None:
    shown = [path for path in HOST_PATHS if path in seen[source]]
    assert shown == [], f"/proc shows host paths {shown} in {source}: {seen[source][:2000]}"


def test_pid_1_is_the_template_not_bubblewrap(seen: dict[str, Any]) -> None:
    assert "bwrap" not in seen["cmdline"] and "--ro-bind" not in seen["cmdline"], seen["cmdline"][:500]
    assert "worker.py template" in seen["cmdline"]


def test_pid_1_stderr_cannot_be_written(seen: dict[str, Any]) -> None:
    assert seen["stderr_write"] != "written", seen["stderr_target"]
    assert seen["stderr_write"].startswith("PermissionError"), seen["stderr_write"]


def test_mounts_do_not_name_the_grader_folder(seen: dict[str, Any]) -> None:
    """The worker's files are copied in, not bind-mounted from the checkout. (The interpreter and the virtualenv
    still are: mountinfo names their host paths, see docs/engine.md.)"""
    assert str(GRADER_DIR) not in seen["mountinfo"], seen["mountinfo"][:3000]


def test_template_stderr_is_a_pipe_not_a_host_file(sandbox_pool: WorkerPool,
                                                    template_pids: Callable[[WorkerPool], list[int]]) -> None:
    targets = [os.readlink(f"/proc/{pid}/fd/2") for pid in template_pids(sandbox_pool)]
    assert targets and all(target.startswith("pipe:") for target in targets), targets


def test_stderr_tail_keeps_the_end_of_what_was_written() -> None:
    """The judge drains a template's stderr whatever it writes, and keeps a bounded tail for error messages."""
    tail = StderrTail("test", limit=1000)
    with open(tail.write_end, "wb", closefd=False) as pipe:
        pipe.write(b"".join(b"line %06d\n" % i for i in range(20_000)))  # 220 KB: three times a pipe's buffer
    tail.close_write_end()
    text = tail.tail(chars=100, wait_s=10)
    assert text.endswith("line 019999")
    assert len(text) <= 100
    assert len(tail.tail(chars=5000)) <= 1000
