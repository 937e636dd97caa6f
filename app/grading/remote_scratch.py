""""Try it" on a site that grades on Celery. The web processes there have no sandbox, so a scratch run travels
to a grading worker as a submission does, on a queue of its own, and its result comes back through Redis: the
worker pushes it onto a list named after the run, and the web request that sent it waits on that list.

Nothing is stored and nothing is retried. A run no worker starts within `QUEUE_WAIT_S` expires in the broker (a
worker discards it) and the learner is told the workers are busy; a run that started but whose answer never
came (its worker died) ends the same way once the problem's total time limit has passed too."""

from __future__ import annotations

import logging
import math
import uuid

import redis
from celery import Celery
from kombu.exceptions import KombuError

from app.errors import ServiceUnavailable
from grader import Problem, ScratchResult

logger = logging.getLogger(__name__)

SCRATCH_TASK = "paperlab.scratch"
SCRATCH_QUEUE = "paperlab.scratch"  # apart from the gradings: a script waits behind other scripts only
QUEUE_WAIT_S = 30.0  # a run no worker has started by then expires: the learner hears so instead of waiting on
RESULT_MARGIN_S = 10.0  # beyond the problem's total limit: the worker's start of a child and the answer's trip
RESULT_TTL_S = 120  # an answer nobody waits for any more (the request gave up) is gone after this


def result_key(prefix: str, run_id: str) -> str:
    return f"{prefix}scratch:{run_id}"


class WorkersBusy(ServiceUnavailable):
    """No grading worker ran the script in time."""


class RemoteScratch:
    """The web side: send a run to the workers and wait for what it printed."""

    def __init__(self, celery_app: Celery, redis_url: str, *, prefix: str, queue_wait_s: float = QUEUE_WAIT_S,
                 margin_s: float = RESULT_MARGIN_S) -> None:
        self._celery = celery_app
        self._url = redis_url
        self._prefix = prefix
        self._queue_wait_s = queue_wait_s
        self._margin_s = margin_s

    def run(self, problem: Problem, code: str, script: str) -> ScratchResult:
        """Blocks for as long as the run takes (call it off the event loop)."""
        run_id = uuid.uuid4().hex
        limits = problem.limits  # a run is a load, pushed back on a busy machine up to its wall-clock ceiling
        longest_s = max(limits.total_timeout_s, limits.load_timeout_s * limits.wall_ceiling_factor)
        wait_s = self._queue_wait_s + longest_s + self._margin_s
        # A connection of its own, whose read timeout outlasts the wait (the shared clients time out in 5 s).
        client = redis.Redis.from_url(self._url, socket_connect_timeout=2.0, socket_timeout=wait_s + 5)
        try:
            try:
                self._celery.send_task(SCRATCH_TASK, args=[run_id, problem.slug, code, script], queue=SCRATCH_QUEUE,
                                       expires=self._queue_wait_s, retry=False)
                answer = client.blpop([result_key(self._prefix, run_id)], timeout=math.ceil(wait_s))
            except (KombuError, redis.RedisError, OSError) as exc:
                logger.warning("scratch run %s could not reach the workers: %s", run_id, exc)
                raise ServiceUnavailable("Try it could not reach the grading workers (the queue is unreachable); "
                                         "try again in a moment.", retry_after=10) from exc
        finally:
            client.close()
        if answer is None:
            raise WorkersBusy(f"No grading worker ran your script within {wait_s:.0f} s: they are all busy, or none "
                              "is running. Try again in a moment.", retry_after=30)
        return ScratchResult.model_validate_json(answer[1])


def send_answer(client: redis.Redis, *, prefix: str, run_id: str, result: ScratchResult) -> None:
    """The worker side: hand the result to the web request waiting for it."""
    key = result_key(prefix, run_id)
    pipeline = client.pipeline(transaction=True)
    pipeline.rpush(key, result.model_dump_json())
    pipeline.expire(key, RESULT_TTL_S)
    pipeline.execute()
