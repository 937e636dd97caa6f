"""The grader's probe in the cgroup v2 guest, run first in the guest's pytest session: it must find the sandbox,
on cgroup v2, in the subtree the run expects (CGROUP2_EXPECTED_BASE, set by guest-steps.sh)."""

from __future__ import annotations

import dataclasses
import json
import os
import sys

import grader


def test_probe_reports_the_v2_layout_and_the_subtree_it_uses() -> None:
    status = grader.probe()
    sys.stdout.write(f"\nCGROUP2-PROBE {json.dumps(dataclasses.asdict(status))}\n")
    assert status.available, status.reason
    assert status.cgroup_version == 2
    assert status.cgroup_base == os.environ["CGROUP2_EXPECTED_BASE"]
    assert status.cgroup_layout is not None and status.cgroup_base in status.cgroup_layout
