""""Try it" on a site that grades on Celery: the web server has no sandbox, so the script runs on a grading
worker (its own queue), and what it printed comes back to the request through Redis."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import httpx
import pytest

from app.grading.celery_backend import make_celery_app
from app.grading.remote_scratch import RemoteScratch, WorkersBusy
from app.settings import Settings
from tests.services.conftest import RedisTarget
from tests.services.services_support import CORRECT, Cluster

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_a_script_runs_on_a_worker_and_prints_to_the_learner(cluster: Cluster) -> None:
    with httpx.Client(base_url=cluster.base_url, timeout=90) as learner:
        answer = learner.post("/api/problems/add_one/runs", json={
            "code": CORRECT, "script": "import torch\nprint('got', add_one(torch.tensor([1.0, 2.0])).tolist())\n"})
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert result["stdout"] == "got [2.0, 3.0]\n" and result["error"] is None, result


def test_a_scripts_exception_names_its_line_across_the_queue(cluster: Cluster) -> None:
    with httpx.Client(base_url=cluster.base_url, timeout=90) as learner:
        answer = learner.post("/api/problems/add_one/runs", json={
            "code": CORRECT, "script": "print('before')\n\nraise ValueError('my own mistake')\n"})
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert result["stdout"] == "before\n", result
    assert result["error"]["type"] == "ValueError" and result["error"]["message"] == "my own mistake"
    assert (result["error"]["where"], result["error"]["line"]) == ("script", 3), result["error"]


def test_a_run_no_worker_takes_tells_the_learner_the_workers_are_busy(redis_target: RedisTarget) -> None:
    # A site of its own (its own key prefix, so its own queue) where no worker runs.
    prefix = f"{redis_target.prefix}idle-{uuid.uuid4().hex[:6]}:"
    settings = Settings(_env_file=None, celery_broker_url=redis_target.url(), redis_key_prefix=prefix)
    remote = RemoteScratch(make_celery_app(settings), redis_target.url(), prefix=prefix, queue_wait_s=0.5,
                           margin_s=0.5)
    problem = SimpleNamespace(slug="add_one", limits=SimpleNamespace(total_timeout_s=0.5, load_timeout_s=0.125,
                                                                   wall_ceiling_factor=8.0))
    with pytest.raises(WorkersBusy, match=r"No grading worker ran your script within 2 s") as refused:
        remote.run(problem, CORRECT, "print(1)\n")  # type: ignore[arg-type]
    assert refused.value.status_code == 503 and refused.value.retry_after == 30
