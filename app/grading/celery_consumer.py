"""The consumer side of the Celery backend, the grading worker process: `python -m app worker [--concurrency N]`.

(app.grading.celery_backend is the sending side: the web server queues the tasks this module runs.)

Each grading process (a prefork child) opens its own database engine and keeps ONE warm
grader.pool.WorkerPool (size 1: one grading at a time per process), made when the process starts
(worker_process_init) so the first submission does not wait for torch to import, and closed when it stops.
The task runs the same `app.grading.runner.grade_submission` as the in-process backend, after looking again at
the submission's problem folder (live reload, as the web server's catalog does). Each grading process also
keeps a heartbeat key in Redis (what /metrics counts as workers) and listens for the learners' stops
(app.grading.stops.RedisStops)."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import redis
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from celery import Celery, signals
from sqlalchemy import Engine, select
from sqlalchemy.exc import SQLAlchemyError

from app.catalog import ProblemCatalog, load_catalog
from app.db import SessionFactory, make_engine, make_session_factory
from app.grading.celery_backend import (
    GRADE_TASK,
    GRADING_QUEUE,
    WORKER_HEARTBEAT_S,
    WORKER_HEARTBEAT_TTL_S,
    celery_config,
    heartbeat_key,
    redis_url,
)
from app.grading.redis_events import RedisEventBus, make_redis
from app.grading.remote_scratch import SCRATCH_QUEUE, SCRATCH_TASK, send_answer
from app.grading.runner import grade_submission
from app.grading.stops import RedisStops
from app.grading.sweeper import stale_before
from app.migrate import alembic_config
from app.models import Submission
from app.settings import Settings
from grader import (
    Activity,
    CancelToken,
    Preparer,
    Problem,
    Report,
    ScratchError,
    ScratchResult,
    WorkerPool,
    probe,
    run_script,
    settle,
)
from grader import grade as grade_with_judge

logger = logging.getLogger(__name__)

# The web server migrates the database; a worker started alongside it waits this long for the schema.
SCHEMA_WAIT_S = 120.0

celery_app = Celery("paperlab", set_as_current=False)  # configured by run_worker()
_settings: Settings | None = None
_context: WorkerContext | None = None
_context_lock = threading.Lock()


class Heartbeat:
    """A key per grading process that expires unless refreshed: operators see live workers, dead ones vanish."""

    def __init__(self, client: redis.Redis, key: str, value: str) -> None:
        self._redis = client
        self._key = key
        self._value = value
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="paperlab-heartbeat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._redis.set(self._key, self._value, ex=WORKER_HEARTBEAT_TTL_S)
            except redis.RedisError as exc:
                logger.warning("could not write the worker heartbeat: %s", exc)
            self._stopping.wait(WORKER_HEARTBEAT_S)

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)
        try:
            self._redis.delete(self._key)
        except redis.RedisError:
            pass


@dataclass
class WorkerContext:
    settings: Settings
    engine: Engine
    session_factory: SessionFactory
    catalog: ProblemCatalog
    bus: RedisEventBus
    pool: WorkerPool
    heartbeat: Heartbeat
    stops: RedisStops
    redis: redis.Redis
    activity: Activity = field(default_factory=Activity)  # this process's tasks running now: the preparer waits
    preparer: Preparer | None = None

    @classmethod
    def open(cls, settings: Settings) -> WorkerContext:
        engine = make_engine(settings.database_url)
        catalog = load_catalog(settings.problems_dir)
        client = make_redis(redis_url(settings))
        pool = WorkerPool(size=1, unsafe=settings.unsafe_no_sandbox)
        pool.start()
        name = f"{socket.gethostname()}:{os.getpid()}"
        heartbeat = Heartbeat(client, heartbeat_key(settings.redis_key_prefix, name), pool.sandbox)
        heartbeat.start()
        stops = RedisStops(client, prefix=settings.redis_key_prefix)
        stops.start()
        logger.info("grading process %s ready (sandbox: %s)", name, pool.sandbox)
        context = cls(
            settings=settings,
            engine=engine,
            session_factory=make_session_factory(engine),
            catalog=catalog,
            bus=RedisEventBus(client, prefix=settings.redis_key_prefix),
            pool=pool,
            heartbeat=heartbeat,
            stops=stops,
            redis=client,
        )
        if settings.prepare_problems:
            context.preparer = Preparer(lambda: list(catalog.values()), context.activity.idle,
                                        grade_reference=context.grade_reference)
            context.preparer.start()
        return context

    def grade_reference(self, problem: Problem, cancel: CancelToken) -> Report:
        """The preparer's grading of `problem`'s reference solution, on this process's pool."""
        return grade_with_judge(problem, problem.reference_source(), pool=self.pool, cancel=cancel)

    def grade(self, submission_id: str) -> None:
        with self.activity.running():
            self._grade(submission_id)

    def _grade(self, submission_id: str) -> None:
        with self.session_factory() as session:
            slug = session.scalar(select(Submission.problem).where(Submission.id == submission_id))
        if slug is None:
            logger.info("submission %s no longer exists; nothing to grade", submission_id)
            return
        problems = current_problems(self.catalog, slug, reload=self.settings.problems_reload_s > 0)
        grade_submission(
            session_factory=self.session_factory,
            submission_id=submission_id,
            problems=problems,
            pool=self.pool,
            bus=self.bus,
            # A redelivered task takes over a `running` submission only once its grader's lease ran out.
            stale_before=stale_before(problems.get(slug), self.settings.grading_lease_margin_s,
                                      wall_factor=self.settings.grading_lease_wall_factor),
            stops=self.stops,  # the learner's Stop, published by the web side (app.grading.stops)
            slow_call_s=self.settings.slow_call_s,
        )

    def scratch(self, run_id: str, slug: str, code: str, script: str) -> None:
        """A learner's "Try it" sent by a web process (app.grading.remote_scratch): run it, send back the result."""
        with self.activity.running():
            self._scratch(run_id, slug, code, script)

    def _scratch(self, run_id: str, slug: str, code: str, script: str) -> None:
        problem = current_problems(self.catalog, slug, reload=self.settings.problems_reload_s > 0).get(slug)
        if problem is None:
            result = ScratchResult(stdout="", stderr="", duration_ms=0.0, error=ScratchError(
                kind="sandbox", message=f"this grading worker has no problem '{slug}', so nothing ran"))
        else:
            result = run_script(problem, code, script, pool=self.pool)
        send_answer(self.redis, prefix=self.settings.redis_key_prefix, run_id=run_id, result=result)

    def close(self) -> None:
        if self.preparer is not None:
            self.preparer.stop()
        self.stops.close()
        self.heartbeat.stop()
        self.pool.close()
        self.bus.close()
        self.engine.dispose()


def current_problems(catalog: ProblemCatalog, slug: str, *, reload: bool) -> ProblemCatalog:
    """The catalog, with `slug`'s folder looked at again just now when live reload is on (the web server's
    PAPERLAB_PROBLEMS_RELOAD_S > 0): a worker never grades with an older battery than the statement the web
    already shows, nor misses a problem added since it started. Looking costs a stat per file of that one
    folder; a folder that no longer loads keeps its last good version, as on the web server."""
    if reload:
        try:
            catalog.refresh(only=slug)
        except Exception:  # noqa: BLE001 - grading with the version already loaded beats not grading at all
            logger.exception("looking again at problem folder %r failed; grading with the loaded version", slug)
    return catalog


def worker_context() -> WorkerContext:
    global _context
    with _context_lock:
        if _context is None:
            _context = WorkerContext.open(_settings or Settings())
        return _context


def close_worker_context() -> None:
    global _context
    with _context_lock:
        context, _context = _context, None
    if context is not None:
        context.close()


@celery_app.task(
    name=GRADE_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    # The database being briefly unreachable is not the submission's fault: try again later.
    autoretry_for=(SQLAlchemyError,),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=10,
)
def grade(submission_id: str) -> None:
    worker_context().grade(submission_id)


@celery_app.task(name=SCRATCH_TASK, ignore_result=True)  # acknowledged on receipt: a lost run is not retried
def scratch(run_id: str, slug: str, code: str, script: str) -> None:
    worker_context().scratch(run_id, slug, code, script)


@signals.worker_process_init.connect
def _warm_up_grading_process(**_: Any) -> None:
    worker_context()
    settle()  # torch, the problems and the warm sandbox stay for the process's life: out of the collector's walks


@signals.worker_process_shutdown.connect
def _close_grading_process(**_: Any) -> None:
    close_worker_context()


@signals.worker_shutdown.connect
def _close_worker(**_: Any) -> None:
    close_worker_context()  # the solo and threads pools grade in the main process


def wait_for_schema(settings: Settings, timeout_s: float = SCHEMA_WAIT_S) -> None:
    """Workers never migrate (two racing migrations would collide); they wait for the web server's."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    engine = make_engine(settings.database_url)
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                with engine.connect() as connection:
                    current = MigrationContext.configure(connection).get_current_revision()
            except SQLAlchemyError as exc:
                current = f"unreachable ({type(exc).__name__})"
            if current == head:
                return
            if time.monotonic() > deadline:
                raise SystemExit(
                    f"the database is at revision {current}, not {head}: start the web server "
                    "(it migrates the database) or run `alembic upgrade head`"
                )
            logger.info("waiting for the database schema (at %s, want %s)", current, head)
            time.sleep(2)
    finally:
        engine.dispose()


def run_worker(*, concurrency: int | None = None, loglevel: str = "info") -> int:
    global _settings
    settings = Settings()
    if not settings.celery_broker_url:
        raise SystemExit("`python -m app worker` needs CELERY_BROKER_URL (and DATABASE_URL shared with the server)")
    if not settings.unsafe_no_sandbox:
        status = probe()
        if not status.available:
            raise SystemExit(f"cannot make a sandbox on this machine, so this worker will not grade: {status.reason}")
    logging.basicConfig(level=loglevel.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    wait_for_schema(settings)
    _settings = settings
    celery_app.conf.update(celery_config(settings))
    processes = concurrency or settings.grading_concurrency
    celery_app.worker_main(
        [
            "worker",
            f"--concurrency={processes}",
            "--pool=prefork",
            f"--loglevel={loglevel.upper()}",
            f"--queues={GRADING_QUEUE},{SCRATCH_QUEUE}",
            f"--hostname=paperlab-{os.getpid()}@%h",
            "--without-gossip",
            "--without-mingle",
        ]
    )
    return 0
