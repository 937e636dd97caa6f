"""pytest plugin for the cgroup v2 guest: one machine-readable line per test, for the host to collect."""

from __future__ import annotations

import json
import os
import sys

import pytest
from slow_machine import allow_slow_template_start


def pytest_configure(config: pytest.Config) -> None:
    allow_slow_template_start()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # One line per test: its call phase, or the phase that failed or skipped it before (setup) or after.
    if report.when == "call" or report.outcome != "passed":
        if report.when == "teardown" and report.outcome == "passed":
            return
        status = {"passed": "passed", "failed": "failed", "skipped": "skipped"}[report.outcome]
        line = {"mode": os.environ.get("CGROUP2_MODE", "?"), "test": report.nodeid, "status": status,
                "phase": report.when, "seconds": round(report.duration, 1)}
        sys.stdout.write(f"\nCGROUP2-RESULT {json.dumps(line)}\n")
        sys.stdout.flush()
