"""Read the guest's serial log and decide: every expected test of both runs present and passed, in time.

Usage: summarise.py LOG --qemu-status N --wall-s S. Prints a table of the results and exits non-zero on any
failed, skipped, timed-out or missing test, or when the guest did not finish."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

# The pytest sessions' own tests: each must report a line of its own (result_plugin.py).
LIMIT_TESTS = (
    "tests/hostile/test_limits.py::test_fork_bomb_is_capped_by_the_process_limit",
    "tests/hostile/test_limits.py::test_thread_bomb_names_the_process_limit",
    "tests/hostile/test_limits_emulated.py::test_memory_bomb_hits_the_memory_limit",
    "tests/hostile/test_limits_emulated.py::test_memory_bomb_across_processes_hits_the_cgroup_limit",
)
CONCURRENT_TEST = "tests/hostile/test_limits_emulated.py::test_concurrent_submissions_cannot_see_each_others_tmp"
TREE_TEST = "tests/hostile/test_cgroup_tree.py::test_several_gradings_each_run_in_a_fresh_capped_leaf_killed_whole"
PROBE_TEST = "scripts/cgroup2-guest/test_guest_probe.py::test_probe_reports_the_v2_layout_and_the_subtree_it_uses"
MOCO_TESTS = tuple(f"tests/hostile/test_moco_emulated.py::test_moco_is_graded_in_the_sandbox_with_the_expected_"
                   f"verdict[{verdict}]" for verdict in ("correct", "known-wrong"))
FULL = ("hostile", PROBE_TEST, *LIMIT_TESTS, CONCURRENT_TEST, TREE_TEST, *MOCO_TESTS)
# What each run must report (guest-tests.sh); True: it also runs the isolation tests, whatever their number.
MODES: dict[str, tuple[tuple[str, ...], bool]] = {
    "root": (FULL, True),
    "delegated": (FULL, True),
    "container": (("container", PROBE_TEST, LIMIT_TESTS[0], LIMIT_TESTS[3]), False),
}
ISOLATION_PREFIX = "tests/hostile/test_isolation.py::"
RESULT = re.compile(r"^CGROUP2-RESULT (\{.*\})\s*$")
UPTIME = re.compile(r"CGROUP2-(BOOTED|DONE) uptime=([0-9.]+)")


def say(line: str) -> None:
    sys.stdout.write(line + "\n")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("log", type=Path)
    parser.add_argument("--qemu-status", type=int, required=True)
    parser.add_argument("--wall-s", type=int, required=True)
    args = parser.parse_args()
    lines = args.log.read_text(errors="replace").replace("\r", "").splitlines()
    results: dict[tuple[str, str], dict[str, object]] = {}
    uptimes: dict[str, float] = {}
    for line in lines:
        if match := RESULT.match(line):
            entry = json.loads(match.group(1))
            results[(str(entry["mode"]), str(entry["test"]))] = entry
        elif match := UPTIME.search(line):
            uptimes[match.group(1)] = float(match.group(2))
    problems: list[str] = []
    if args.qemu_status in (124, 137):
        problems.append(f"the guest did not finish within its time limit (QEMU stopped, status {args.qemu_status})")
    if "BOOTED" not in uptimes:
        problems.append("the guest never reached its /init")
    elif "DONE" not in uptimes:
        problems.append("the guest did not finish its tests")
    for mode, (expected, with_isolation) in MODES.items():
        isolation = [test for (m, test) in results if m == mode and test.startswith(ISOLATION_PREFIX)]
        if with_isolation and not isolation:
            problems.append(f"{mode}: no isolation test reported")
        for test in [*expected, *isolation]:
            entry = results.get((mode, test))
            if entry is None:
                problems.append(f"{mode}: {test}: no result")
            elif entry["status"] != "passed":
                problems.append(f"{mode}: {test}: {entry['status']}")
    say("\ncgroup v2 guest results")
    if "BOOTED" in uptimes:
        say(f"  boot to /init: {uptimes['BOOTED']:.1f} s of guest uptime")
    for (mode, test), entry in results.items():
        say(f"  {mode:<9} {str(entry['status']):<7} {float(str(entry['seconds'])):>7.1f} s  {test}")
    if "DONE" in uptimes:
        say(f"  guest finished at {uptimes['DONE']:.1f} s of uptime; QEMU ran {args.wall_s} s")
    if problems:
        sys.stderr.write("test-cgroup2: FAILED\n  " + "\n  ".join(problems) + "\n")
        return 1
    say(f"test-cgroup2: passed ({len(results)} results)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
