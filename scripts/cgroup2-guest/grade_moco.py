"""Grade one MoCo submission in the guest through the CLI (`python -m grader grade moco FILE --json`) and
check that it ran in the sandbox with the expected verdict. Usage: grade_moco.py FILE true|false"""

from __future__ import annotations

import json
import subprocess
import sys

submission, expected = sys.argv[1], sys.argv[2] == "true"
completed = subprocess.run([sys.executable, "-m", "grader", "grade", "moco", submission, "--json"],
                           capture_output=True, text=True, check=False)
sys.stderr.write(completed.stderr[-4000:])
try:
    report = json.loads(completed.stdout)
except json.JSONDecodeError:
    sys.exit(f"no JSON report (exit {completed.returncode}): {completed.stdout[-2000:]}")
checks = report.get("checks", [])
passed = sum(check.get("status") == "passed" for check in checks)
sys.stdout.write(f"CGROUP2-GRADE solved={report.get('solved')} sandbox={report.get('sandbox')} "
                 f"checks={passed}/{len(checks)} passed exit={completed.returncode}\n")
for check in checks:
    if check.get("status") != "passed":
        sys.stdout.write(f"  {check.get('status')}: {check.get('title')}: {str(check.get('message'))[:200]}\n")
if report.get("sandbox") != "bubblewrap":
    sys.exit(f"graded without the sandbox: {report.get('sandbox')}")
if report.get("solved") is not expected:
    sys.exit(f"solved={report.get('solved')}, expected {expected}")
