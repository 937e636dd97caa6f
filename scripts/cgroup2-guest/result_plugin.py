"""pytest plugin for the cgroup v2 guest: one machine-readable line per test, for the host to collect."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest
from slow_machine import allow_slow_template_start

_STARTED = time.monotonic()
SLOW_PHASE_S = 3.0


def pytest_configure(config: pytest.Config) -> None:
    allow_slow_template_start()


def pytest_sessionstart(session: pytest.Session) -> None:
    # The interpreter's start and torch's import, before the first test: a minute or more under emulation.
    sys.stdout.write(f"\nCGROUP2-TIMING session started {time.monotonic() - _STARTED:.1f} s after the plugin loaded"
                     f" ({time.time() - _process_start():.1f} s after the interpreter)\n")
    sys.stdout.flush()


def _process_start() -> float:
    """When this process started, in wall-clock seconds (from /proc: its start in ticks after boot)."""
    with open("/proc/self/stat") as stat:
        ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as uptime:
        booted = time.time() - float(uptime.read().split()[0])
    return booted + ticks / os.sysconf("SC_CLK_TCK")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # Fixtures that take long (the warm pool's start and close, the check after each hostile test that the pool
    # still grades): where the time of a run goes that the tests' own lines do not show.
    if report.when != "call" and report.duration >= SLOW_PHASE_S:
        sys.stdout.write(f"\nCGROUP2-TIMING {report.when} {report.duration:.1f} s {report.nodeid}\n")
        sys.stdout.flush()
    # One line per test: its call phase, or the phase that failed or skipped it before (setup) or after.
    if report.when == "call" or report.outcome != "passed":
        if report.when == "teardown" and report.outcome == "passed":
            return
        status = {"passed": "passed", "failed": "failed", "skipped": "skipped"}[report.outcome]
        line = {"mode": os.environ.get("CGROUP2_MODE", "?"), "test": report.nodeid, "status": status,
                "phase": report.when, "seconds": round(report.duration, 1)}
        sys.stdout.write(f"\nCGROUP2-RESULT {json.dumps(line)}\n")
        sys.stdout.flush()
