"""Grading on many machines: a Celery queue on Redis, workers (`python -m app worker`) anywhere that reaches the
broker and the database. The web side only stores a submission and enqueues its id; the worker task
(app.grading.celery_consumer) runs the same `app.grading.runner.grade_submission` as the in-process backend.

Nothing is lost: tasks are acknowledged late (a worker that dies mid-grade leaves its task to another after the
visibility timeout), grading claims a submission with a conditional UPDATE (a redelivered task does not grade
twice), and the web server's sweeper (app.grading.sweeper) requeues abandoned gradings and enqueues what the
broker never got, e.g. when it was down at submit time (the learner then gets a 503 saying the code is kept)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis
from celery import Celery
from kombu.exceptions import KombuError
from sqlalchemy import func, select

from app.db import SessionFactory
from app.grading.base import (
    BackendHealth,
    BackendUnavailable,
    QueueFull,
    SubmissionKept,
    Submitter,
    address_share,
)
from app.grading.event_bus import EventBus
from app.grading.redis_events import RedisEventBus, make_redis
from app.grading.remote_scratch import SCRATCH_QUEUE, SCRATCH_TASK, RemoteScratch
from app.grading.stops import publish_stop
from app.grading.sweeper import BrokerUnreachable, Sweeper
from app.grading.waiting_by_address import WaitingByAddress
from app.models import Submission
from app.settings import Settings
from grader import Problem

logger = logging.getLogger(__name__)

GRADE_TASK = "paperlab.grade"
GRADING_QUEUE = "paperlab.grading"
# An enqueue on record outlives any realistic wait in the queue; past it, a duplicate task is harmless.
ENQUEUE_MARKER_TTL_S = 6 * 3600
# Workers refresh their heartbeat this often; a key that missed two refreshes has expired.
WORKER_HEARTBEAT_S = 10.0
WORKER_HEARTBEAT_TTL_S = 25
QUEUE_FULL_RETRY_AFTER_S = 5
BROKER_DOWN_RETRY_AFTER_S = 30
HEALTH_CACHE_S = 3.0
# A single grading must start within this many seconds of a worker (re)starting its pool.
WORKER_PROCESS_START_TIMEOUT_S = 180.0


def redis_url(settings: Settings) -> str:
    url = settings.redis_url or settings.celery_broker_url
    if not url or not url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(
            "grading on Celery needs Redis for live events: set PAPERLAB_REDIS_URL, or use a redis:// CELERY_BROKER_URL"
        )
    return url


def make_celery_app(settings: Settings) -> Celery:
    app = Celery("paperlab", set_as_current=False)
    app.conf.update(celery_config(settings))
    return app


def celery_config(settings: Settings) -> dict[str, Any]:
    """The one Celery configuration, for the web side (sending) and the workers (app.grading.celery_consumer)."""
    visibility_s = settings.celery_visibility_timeout_s
    return {
        "broker_url": settings.celery_broker_url,
        # JSON only: a worker never unpickles what came over the network.
        "task_serializer": "json",
        "accept_content": ["json"],
        "result_serializer": "json",
        "task_ignore_result": True,
        # Acknowledge after grading, and give the task back if the process running it dies.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        # One grading per process at a time, no hoarding: a dying worker strands at most its own task.
        "worker_prefetch_multiplier": 1,
        # A lost broker connection does not cancel a grading; its verdict still reaches the database.
        "worker_cancel_long_running_tasks_on_connection_loss": False,
        "task_default_queue": GRADING_QUEUE,
        "task_routes": {GRADE_TASK: {"queue": GRADING_QUEUE}, SCRATCH_TASK: {"queue": SCRATCH_QUEUE}},
        "broker_connection_retry_on_startup": True,
        "broker_connection_timeout": 2.0,
        "broker_transport_options": {
            "visibility_timeout": visibility_s,
            # Look for abandoned tasks often enough that the visibility timeout is what decides.
            "unacked_restore_interval": max(1, min(10, int(visibility_s / 4))),
            "unacked_restore_throttle": 1,
            "global_keyprefix": settings.redis_key_prefix,
            "socket_connect_timeout": 2.0,
            "socket_timeout": 10.0,
        },
        # Starting a process's warm sandbox (importing torch) can take long on a loaded machine.
        "worker_proc_alive_timeout": WORKER_PROCESS_START_TIMEOUT_S,
        "enable_utc": True,
    }


class CeleryEnqueuer:
    """Sends grading tasks, and keeps a marker per enqueued submission so the sweeper knows what the broker has."""

    def __init__(self, celery_app: Celery, client: redis.Redis, *, prefix: str) -> None:
        self._celery = celery_app
        self._redis = client
        self._prefix = prefix

    def _marker(self, submission_id: str) -> str:
        return f"{self._prefix}enqueued:{submission_id}"

    def enqueue(self, submission_id: str, *, unless_marked: bool = False) -> bool:
        marker = self._marker(submission_id)
        try:
            if unless_marked and not self._redis.set(marker, "1", nx=True, ex=ENQUEUE_MARKER_TTL_S):
                return False  # another web process enqueued it since
            self._celery.send_task(GRADE_TASK, args=[submission_id], queue=GRADING_QUEUE, retry=False)
        except (KombuError, redis.RedisError, OSError) as exc:
            self._forget(marker)
            raise BrokerUnreachable(f"{type(exc).__name__}: {exc}") from exc
        if not unless_marked:
            try:
                self._redis.set(marker, "1", ex=ENQUEUE_MARKER_TTL_S)
            except redis.RedisError:
                pass  # without the marker the sweeper sends a duplicate later, which grading ignores
        return True

    def marked(self, submission_ids: list[str]) -> list[bool]:
        try:
            pipeline = self._redis.pipeline(transaction=False)
            for submission_id in submission_ids:
                pipeline.exists(self._marker(submission_id))
            return [bool(found) for found in pipeline.execute()]
        except redis.RedisError as exc:
            raise BrokerUnreachable(f"{type(exc).__name__}: {exc}") from exc

    def _forget(self, marker: str) -> None:
        try:
            self._redis.delete(marker)
        except redis.RedisError:
            pass


@dataclass(frozen=True)
class WorkerInfo:
    """What a grading process says about itself in its heartbeat (no host names leave through metrics)."""

    sandbox: str


@dataclass(frozen=True)
class OperationalMetrics:
    broker_up: bool
    broker_queue_length: int | None
    broker_unacknowledged: int | None
    workers: list[WorkerInfo]
    events_published: int | None


def heartbeat_key(prefix: str, name: str) -> str:
    return f"{prefix}workers:{name}"


class CeleryBackend:
    name = "celery"

    def __init__(
        self,
        *,
        settings: Settings,
        session_factory: SessionFactory,
        problems: Mapping[str, Problem],
        bus: EventBus,
    ) -> None:
        self._settings = settings
        self._session_factory = session_factory
        self._bus = bus
        self._prefix = settings.redis_key_prefix
        self._redis = make_redis(redis_url(settings))
        broker_url = settings.celery_broker_url or ""
        self._broker_redis = make_redis(broker_url) if broker_url.startswith(("redis://", "rediss://")) else None
        self.celery_app = make_celery_app(settings)
        self.enqueuer = CeleryEnqueuer(self.celery_app, self._redis, prefix=self._prefix)
        self.scratch = RemoteScratch(self.celery_app, redis_url(settings), prefix=self._prefix)  # "Try it"
        self.sweeper = Sweeper(
            session_factory=session_factory,
            problems=problems,
            enqueuer=self.enqueuer,
            interval_s=settings.sweep_interval_s,
            lease_margin_s=settings.grading_lease_margin_s,
            lease_wall_factor=settings.grading_lease_wall_factor,
        )
        self._health_lock = threading.Lock()
        self._health: tuple[float, BackendHealth] | None = None
        # The broker's queue is FIFO: fairness here is these caps on each address's share of it (learners not
        # yet established, and all together).
        self.waiting_by_address = WaitingByAddress(
            session_factory=session_factory,
            limit=settings.queue_limit_per_address,
            share=address_share(queue_limit=settings.queue_limit, per_address=settings.queue_limit_per_address),
        )

    def start(self) -> None:
        if isinstance(self._bus, RedisEventBus):
            self._bus.start_listener()
        self.sweeper.start()

    def stop(self) -> None:
        # Nothing to hand back: every submission is in the database, and the broker holds what was enqueued.
        self.sweeper.stop()
        if isinstance(self._bus, RedisEventBus):
            self._bus.close()
        self.celery_app.close()
        self._redis.close()
        if self._broker_redis is not None:
            self._broker_redis.close()

    def submit(self, submission_id: str, *, submitter: Submitter) -> None:
        queued = self._queued_in_database()
        if queued > self._settings.queue_limit:
            raise QueueFull(
                f"The grading queue is full ({self._settings.queue_limit} submissions waiting); "
                f"try again in {QUEUE_FULL_RETRY_AFTER_S} seconds.",
                retry_after=QUEUE_FULL_RETRY_AFTER_S,
            )
        self.waiting_by_address.admit(submitter.address, submission_id, fresh=not submitter.established)
        try:
            self.enqueuer.enqueue(submission_id)
        except BrokerUnreachable as exc:
            logger.warning("broker unreachable at submit; %s stays queued for the sweeper: %s", submission_id, exc)
            raise SubmissionKept(
                "The grading queue cannot be reached right now. Your code is saved and will be graded as soon "
                "as the queue is back; you do not need to run it again (its verdict will appear in your "
                "attempts).",
                retry_after=BROKER_DOWN_RETRY_AFTER_S,
            ) from None

    def stop_grading(self, submission_id: str) -> None:
        """A key and a message on Redis: the worker grading it (app.grading.celery_consumer) listens."""
        try:
            publish_stop(self._redis, prefix=self._prefix, submission_id=submission_id)
        except redis.RedisError as exc:
            raise BackendUnavailable(
                "The grading workers cannot be reached right now, so the run could not be stopped; it ends at its "
                "time limit.",
                retry_after=BROKER_DOWN_RETRY_AFTER_S,
            ) from exc

    def health(self) -> BackendHealth:
        with self._health_lock:
            if self._health is not None and time.monotonic() - self._health[0] < HEALTH_CACHE_S:
                return self._health[1]
        metrics = self.operational_metrics()
        sandboxes = {worker.sandbox for worker in metrics.workers}
        reason = None
        if not metrics.broker_up:
            reason = "the grading queue (broker) is unreachable"
        elif not metrics.workers:
            reason = "no grading worker is running; submissions wait in the queue"
        health = BackendHealth(
            backend=self.name,
            available=metrics.broker_up,
            sandbox="none" if "none" in sandboxes else ("bubblewrap" if sandboxes else None),
            queue_depth=self._queued_in_database(),
            queue_limit=self._settings.queue_limit,
            reason=reason,
        )
        with self._health_lock:
            self._health = (time.monotonic(), health)
        return health

    def operational_metrics(self) -> OperationalMetrics:
        try:
            self._redis.ping()
            workers = self._workers()
            published = self._bus.events_published() if isinstance(self._bus, RedisEventBus) else None
        except redis.RedisError:
            return OperationalMetrics(False, None, None, [], None)
        queue_length = unacknowledged = None
        broker_up = True
        if self._broker_redis is not None:
            try:
                queue_length = int(self._broker_redis.llen(f"{self._prefix}{GRADING_QUEUE}"))
                unacknowledged = int(self._broker_redis.hlen(f"{self._prefix}unacked"))
            except redis.RedisError:
                broker_up = False
        return OperationalMetrics(broker_up, queue_length, unacknowledged, workers, published)

    def _workers(self) -> list[WorkerInfo]:
        keys = list(self._redis.scan_iter(match=heartbeat_key(self._prefix, "*"), count=1000))
        values = self._redis.mget(keys) if keys else []
        return [WorkerInfo(sandbox=_sandbox_of(value)) for value in values if value is not None]

    def _queued_in_database(self) -> int:
        with self._session_factory() as session:
            return session.scalar(select(func.count()).where(Submission.status == "queued")) or 0


def _sandbox_of(value: Any) -> str:
    text = value.decode() if isinstance(value, bytes) else str(value)
    return "none" if text == "none" else "bubblewrap"


def make_event_bus(settings: Settings) -> EventBus:
    return RedisEventBus(make_redis(redis_url(settings)), prefix=settings.redis_key_prefix)


def make_backend(
    *, settings: Settings, session_factory: SessionFactory, problems: Mapping[str, Problem], bus: EventBus
) -> CeleryBackend:
    return CeleryBackend(settings=settings, session_factory=session_factory, problems=problems, bus=bus)
