"""The Stop button across processes: the web server publishes the stop on Redis, the Celery worker grading the
submission hears it and kills the call at once; the event stream it reaches through Redis names the long call
first and ends with the stopped report, and the worker grades the next submission as usual."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.services.services_support import CORRECT, Cluster, parse_sse, submit, wait_for_verdict

pytestmark = [pytest.mark.services, pytest.mark.slow]

LOOPING = "import torch\n\n\ndef add_one(x):\n    while True:\n        x = x + 0\n"
CALL_LIMIT_S = 5.0  # tests/app/fixtures/problems/add_one


def test_a_stop_reaches_the_celery_worker_and_ends_the_looping_call(cluster: Cluster) -> None:
    with httpx.Client(base_url=cluster.base_url, timeout=30) as learner:
        created = submit(learner, LOOPING)
        assert created.status_code == 202, created.text
        submission_id = created.json()["id"]
        events: list[tuple[str, Any]] = []
        stopped_at = 0.0
        with learner.stream("GET", f"/api/submissions/{submission_id}/events") as response:
            for kind, data in parse_sse(response.iter_lines()):
                events.append((kind, data))
                if kind == "call" and data["function"] == "add_one" and not stopped_at:
                    stopped_at = time.monotonic()
                    answer = learner.post(f"/api/submissions/{submission_id}/stop")
                    assert answer.status_code == 202, answer.text
        seconds = time.monotonic() - stopped_at
        assert stopped_at, f"no call event came through Redis: {events}"
        report = events[-1][1]["report"]
        assert events[-1][0] == "report" and report["stopped"] is True and report["solved"] is False
        assert report["checks"][0]["message"].startswith("stopped by you during add_one("), report["checks"][0]
        assert seconds < CALL_LIMIT_S - 1, f"the stop took {seconds:.1f} s"
        next_run = submit(learner, CORRECT)
        assert wait_for_verdict(learner, next_run.json()["id"])["report"]["solved"] is True
