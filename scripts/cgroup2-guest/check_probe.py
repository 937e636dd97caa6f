"""The grader's probe in the guest: it must find the sandbox, on cgroup v2, in the expected subtree."""

from __future__ import annotations

import dataclasses
import json
import sys

import grader

expected_base = sys.argv[1]
status = grader.probe()
sys.stdout.write(f"CGROUP2-PROBE {json.dumps(dataclasses.asdict(status))}\n")
problems = []
if not status.available:
    problems.append(f"no sandbox: {status.reason}")
if status.cgroup_version != 2:
    problems.append(f"cgroup version {status.cgroup_version}, expected 2")
if status.cgroup_base != expected_base:
    problems.append(f"cgroup base {status.cgroup_base}, expected {expected_base}")
if problems:
    sys.exit("; ".join(problems))
