"""The HTTP half of `make container-test`: drive a PaperLab site running in containers through its API, as a
learner's browser would, and fail loudly on the first thing that is not as promised.

Run by scripts/container/test.sh with the host's python3 (standard library only):
    python3 check_api.py --url http://127.0.0.1:PORT --repo . --workers 2 \
        --kill "podman kill --signal KILL WORKER" --psql "psql -h 127.0.0.1 -U postgres -d DB" [--phases ready,...]
"""

from __future__ import annotations

import argparse
import ast
import http.cookiejar
import json
import re
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FINISHED = ("done", "error")
# A submission that sleeps while it loads: long enough to kill its worker mid-grading, within the problem's
# load limit (10 s).
SLOW_LOAD_S = 6
# What the sandbox must not show: the image's tree (code, problems with their references, the server's secret).
PROBE = '''
import os

def _look(path):
    try:
        with open(path, "rb") as handle:
            return "READ %d bytes" % len(handle.read())
    except OSError as exc:
        return type(exc).__name__

raise RuntimeError("probe: srv=%s reference=%s secret=%s usr=%s" % (
    os.path.exists("/srv"), _look("/srv/paperlab/problems/moco/reference.py"),
    _look("/srv/paperlab/var/secret_key"), os.path.isdir("/usr/lib")))
'''
PROBE_EXPECTED = "probe: srv=False reference=FileNotFoundError secret=FileNotFoundError usr=True"


class CheckFailed(Exception):
    """The site did not do what the container test requires; the message says what and what it did instead."""


def say(message: str) -> None:
    sys.stdout.write(f"[{time.strftime('%H:%M:%S', time.gmtime())}] {message}\n")
    sys.stdout.flush()


class Learner:
    """One browser: its own cookie, hence its own learner id on the server."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(self.base_url + path, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def submit(self, slug: str, code: str) -> str:
        request = urllib.request.Request(
            f"{self.base_url}/api/problems/{slug}/submissions",
            data=json.dumps({"code": code}).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with self.opener.open(request, timeout=10) as response:
                return str(json.load(response)["id"])
        except urllib.error.HTTPError as exc:
            raise CheckFailed(f"POST a {slug} submission: HTTP {exc.code} {exc.read().decode()[:300]}") from None

    def submission(self, submission_id: str) -> dict[str, Any]:
        status, body = self.get(f"/api/submissions/{submission_id}")
        if status != 200:
            raise CheckFailed(f"GET /api/submissions/{submission_id}: HTTP {status} {body[:300]}")
        return dict(json.loads(body))

    def wait(self, submission_id: str, *, until: tuple[str, ...], timeout_s: float) -> dict[str, Any]:
        end = time.monotonic() + timeout_s
        while True:
            submission = self.submission(submission_id)
            if submission["status"] in until:
                return submission
            if time.monotonic() > end:
                raise CheckFailed(f"submission {submission_id} still {submission['status']} after {timeout_s:.0f} s")
            time.sleep(0.2)


@dataclass(frozen=True)
class Options:
    url: str
    repo: Path
    workers: int
    kill: list[str]
    psql: list[str]
    start_timeout_s: float


def wait_until_ready(options: Options) -> None:
    """/healthz answers 200 with the bubblewrap sandbox, and every worker's grading process has a heartbeat."""
    probe = Learner(options.url)
    end = time.monotonic() + options.start_timeout_s
    last = "no answer"
    while time.monotonic() < end:
        try:
            status, body = probe.get("/healthz")
            _, metrics = probe.get("/metrics")
        except OSError as exc:  # not listening yet
            last = str(exc)
            time.sleep(1)
            continue
        ready = re.search(r'^paperlab_grading_workers\{sandbox="bubblewrap"\} (\d+)', metrics, re.M)
        workers = int(ready.group(1)) if ready else 0
        last = f"HTTP {status} {body}; {workers} bubblewrap worker(s)"
        if status == 200 and json.loads(body).get("sandbox") == "bubblewrap" and workers >= options.workers:
            say(f"/healthz: {body}")
            say(f"/metrics: {workers} grading workers with the bubblewrap sandbox")
            return
        time.sleep(1)
    raise CheckFailed(f"the site was not ready within {options.start_timeout_s:.0f} s: {last}")


def grade(options: Options, name: str, code: str, *, solved: bool) -> dict[str, Any]:
    learner = Learner(options.url)
    started = time.monotonic()
    submission = learner.wait(learner.submit("moco", code), until=FINISHED, timeout_s=120)
    report = submission["report"] or {}
    checks = report.get("checks", [])
    passed = sum(1 for check in checks if check["status"] == "passed")
    say(f"{name}: status={submission['status']} solved={report.get('solved')} report={report.get('status')} "
        f"checks passed {passed}/{len(checks)} sandbox={report.get('sandbox')} "
        f"({time.monotonic() - started:.1f} s submit to verdict)")
    if submission["status"] != "done" or report.get("solved") is not solved or report.get("sandbox") != "bubblewrap":
        raise CheckFailed(f"{name}: expected solved={solved} under bubblewrap, got {json.dumps(report)[:600]}")
    return report


def mutant_submission(reference: str, path: Path) -> str:
    """What a mutant file stands for, as the engine materialises it (grader.problems.parse_mutant): a patch (a
    docstring line `Overrides: f, g`) is the reference followed by the patch, whose definitions win; any other
    file is a whole submission."""
    text = path.read_text()
    if re.search(r"^\s*Overrides:", ast.get_docstring(ast.parse(text)) or "", re.MULTILINE) is None:
        return text
    return f"{reference.rstrip()}\n\n\n# --- mutant {path.name}: its definitions replace the ones above ---\n{text}"


def check_reference_and_mutant(options: Options) -> None:
    moco = options.repo / "problems" / "moco"
    reference = (moco / "reference.py").read_text()
    grade(options, "MoCo reference", reference, solved=True)
    # SimCLR-style: the other keys of the batch used as extra negatives.
    report = grade(options, "MoCo mutant in_batch_negatives",
                   mutant_submission(reference, moco / "mutants" / "in_batch_negatives.py"), solved=False)
    caught = [check["id"] for check in report["checks"] if check["status"] == "failed" and check["required"]]
    if report["status"] != "failed" or not caught:
        raise CheckFailed(f"the mutant should fail required checks, not end in {report['status']}")
    say(f"mutant caught by {len(caught)} required check(s), e.g. {caught[0]}")


def check_sandbox_hides_srv(options: Options) -> None:
    learner = Learner(options.url)
    submission = learner.wait(learner.submit("moco", PROBE), until=FINISHED, timeout_s=120)
    messages = {check["message"] for check in (submission["report"] or {}).get("checks", [])}
    seen = next((match.group(0) for message in messages if (match := re.search(r"probe: [^()]*?usr=\w+", message))),
                None)
    say(f"a submission looking at the image's tree: {seen}")
    if seen != PROBE_EXPECTED:
        raise CheckFailed(f"the sandbox shows a submission what it should not (expected '{PROBE_EXPECTED}')")


def attempts_of(options: Options, submission_id: str) -> int:
    query = f"select attempts from submissions where id = '{submission_id}'"
    completed = subprocess.run([*options.psql, "-tAc", query], capture_output=True, text=True, check=True)
    return int(completed.stdout.strip())


def check_worker_kill(options: Options) -> None:
    """Two slow submissions, one per worker (one grading process each): SIGKILL one worker container while both
    grade. Both must still end solved; the killed one's is graded again by the surviving worker."""
    # The sleep goes last: the reference starts with a __future__ import, which must stay first.
    code = (options.repo / "problems/moco/reference.py").read_text() + f"\nimport time\ntime.sleep({SLOW_LOAD_S})\n"
    learners = [Learner(options.url), Learner(options.url)]
    ids = [learner.submit("moco", code) for learner in learners]
    for learner, submission_id in zip(learners, ids, strict=True):
        learner.wait(submission_id, until=("running", *FINISHED), timeout_s=60)
    states = [learner.submission(i)["status"] for learner, i in zip(learners, ids, strict=True)]
    if states != ["running", "running"]:
        raise CheckFailed(f"both slow submissions should be grading at once (one per worker), got {states}")
    subprocess.run(options.kill, check=True, capture_output=True)
    killed_at = time.monotonic()
    say(f"both slow submissions grading; SIGKILLed a worker container ({shlex.join(options.kill)})")
    for learner, submission_id in zip(learners, ids, strict=True):
        # The killed grading is handed on once its lease (the problem's time limits + margin) has run out.
        submission = learner.wait(submission_id, until=FINISHED, timeout_s=240)
        report = submission["report"] or {}
        attempts = attempts_of(options, submission_id)
        say(f"slow submission {submission_id[:8]}: status={submission['status']} solved={report.get('solved')} "
            f"attempts={attempts} ({time.monotonic() - killed_at:.1f} s after the kill)")
        if submission["status"] != "done" or report.get("solved") is not True:
            raise CheckFailed(f"a submission was lost or spoiled by the worker kill: {json.dumps(report)[:600]}")
    regraded = [attempts_of(options, submission_id) for submission_id in ids]
    if sorted(regraded) != [1, 2]:
        raise CheckFailed(f"expected one submission graded once and the killed one twice, got attempts {regraded}")


PHASES = {"ready": wait_until_ready, "grades": check_reference_and_mutant, "sandbox-view": check_sandbox_hides_srv,
          "worker-kill": check_worker_kill}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--workers", type=int, required=True, help="worker containers (one grading process each)")
    parser.add_argument("--kill", required=True, help="command that SIGKILLs one worker container")
    parser.add_argument("--psql", required=True, help="psql command line for the site's database")
    parser.add_argument("--start-timeout", type=float, default=300.0)
    parser.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)}")
    args = parser.parse_args(argv)
    unknown = set(args.phases.split(",")) - set(PHASES)
    if unknown:
        parser.error(f"unknown phase(s): {', '.join(sorted(unknown))}")
    options = Options(args.url.rstrip("/"), args.repo, args.workers, shlex.split(args.kill), shlex.split(args.psql),
                      args.start_timeout)
    try:
        for name in args.phases.split(","):
            started = time.monotonic()
            PHASES[name](options)
            say(f"-- {name}: ok ({time.monotonic() - started:.1f} s)")
    except CheckFailed as exc:
        sys.stderr.write(f"container test FAILED: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
