"""Grade one MoCo submission in the guest through the CLI's own entry point (what `python -m grader grade moco
FILE --json` runs, in this process so that slow_machine applies) and check that it ran in the sandbox with the
expected verdict. Usage: grade_moco.py FILE true|false"""

from __future__ import annotations

import contextlib
import io
import json
import sys

from slow_machine import allow_slow_template_start

allow_slow_template_start()
from grader.__main__ import main  # noqa: E402 - after the allowance, which patches grader.pool

submission, expected = sys.argv[1], sys.argv[2] == "true"
output = io.StringIO()
with contextlib.redirect_stdout(output):
    exit_code = main(["grade", "moco", submission, "--json"])
try:
    report = json.loads(output.getvalue())
except json.JSONDecodeError:
    sys.exit(f"no JSON report (exit {exit_code}): {output.getvalue()[-2000:]}")
checks = report.get("checks", [])
passed = sum(check.get("status") == "passed" for check in checks)
sys.stdout.write(f"CGROUP2-GRADE solved={report.get('solved')} sandbox={report.get('sandbox')} "
                 f"checks={passed}/{len(checks)} passed exit={exit_code}\n")
for check in checks:
    if check.get("status") != "passed":
        sys.stdout.write(f"  {check.get('status')}: {check.get('title')}: {str(check.get('message'))[:200]}\n")
if report.get("sandbox") != "bubblewrap":
    sys.exit(f"graded without the sandbox: {report.get('sandbox')}")
if report.get("solved") is not expected:
    sys.exit(f"solved={report.get('solved')}, expected {expected}")
