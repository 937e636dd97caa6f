"""The default backend: one machine, no extra services. A bounded, fair queue (app.grading.fair_queue: turns
by network address, and by learner within an address) feeds N grading threads that share one
WorkerPool(size=N) of warm sandboxes. Per address, a few submissions of learners not yet established
(app.trust) may wait, and all of an address's together at most its share of the queue. The database is the
source of truth: a submission is stored before it is queued here, and whatever a stopped process left `queued`
or `running` is queued again at start-up."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sqlalchemy import select

from app.db import SessionFactory
from app.grading.base import (
    AddressQueueFull,
    AddressShareFull,
    BackendHealth,
    BackendUnavailable,
    Pool,
    QueueFull,
    Submitter,
    address_share,
)
from app.grading.call_watch import SLOW_CALL_S
from app.grading.event_bus import EventBus
from app.grading.fair_queue import FairQueue
from app.grading.runner import GradeFunction, grade_submission
from app.grading.stops import StopRegistry
from app.models import IN_FLIGHT, Submission
from grader import Activity, CancelToken, Preparer, Problem, Report, SandboxUnavailable, WorkerPool, grade

logger = logging.getLogger(__name__)

PoolFactory = Callable[[], Pool]

# How long a client should wait before retrying when the queue is full / grading is down.
QUEUE_FULL_RETRY_AFTER_S = 5
UNAVAILABLE_RETRY_AFTER_S = 60
# On shutdown, how long to wait for gradings in progress (a battery's total time limit is 60 s by default).
STOP_TIMEOUT_S = 90.0


@dataclass(frozen=True)
class QueuedSubmission:
    submission_id: str
    fresh: bool  # from a learner not yet established: counts against the address's cap on waiting


def _is_fresh(queued: QueuedSubmission) -> bool:
    return queued.fresh


class InProcessBackend:
    name = "in-process"

    def __init__(
        self,
        *,
        session_factory: SessionFactory,
        problems: Mapping[str, Problem],
        bus: EventBus,
        concurrency: int,
        queue_limit: int,
        queue_limit_per_address: int | None = None,
        unsafe_no_sandbox: bool = False,
        grade: GradeFunction | None = None,
        pool_factory: PoolFactory | None = None,
        slow_call_s: float = SLOW_CALL_S,
        prepare_problems: bool = False,
    ) -> None:
        self._session_factory = session_factory
        self._problems = problems
        self._bus = bus
        self._concurrency = concurrency
        self._queue_limit = queue_limit
        self._queue_limit_per_address = queue_limit_per_address
        self._grade = grade
        self._pool_factory = pool_factory or (lambda: _worker_pool(concurrency, unsafe_no_sandbox))
        # Unbounded underneath: the limits apply to new submissions only, never to recovered ones.
        self._queue: FairQueue[QueuedSubmission] = FairQueue()
        self._address_share = address_share(queue_limit=queue_limit, per_address=queue_limit_per_address)
        self._admit = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._pool: Pool | None = None
        self._unavailable_reason: str | None = "grading has not started"
        self._slow_call_s = slow_call_s
        self._stops = StopRegistry()  # the Stop button reaches this process's gradings here
        self._activity = Activity()  # submissions the grading threads hold now
        # A stand-in grade function (tests) has no reference answers to prepare.
        self._preparer = Preparer(
            lambda: list(self._problems.values()), self._idle,
            grade_reference=self._grade_reference if grade is None else None,
        ) if prepare_problems else None

    def start(self) -> None:
        try:
            pool = self._pool_factory()
            pool.start()
        except SandboxUnavailable as exc:
            self._unavailable_reason = str(exc)
            logger.error("grading is unavailable, submissions will be refused: %s", exc)
            return
        self._pool = pool
        self._unavailable_reason = None
        # The pool may start fewer sandboxes than asked when they would not fit in memory: grade that many at once.
        for number in range(min(self._concurrency, getattr(pool, "size", self._concurrency))):
            thread = threading.Thread(target=self._work, name=f"paperlab-grading-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)
        self._requeue_unfinished()
        if self._preparer is not None:
            self._preparer.start()

    def stop(self) -> None:
        if self._preparer is not None:
            self._preparer.stop()
        self._queue.close()  # what is still waiting stays queued in the database; the next start re-queues it
        for thread in self._threads:
            thread.join(timeout=STOP_TIMEOUT_S)
            if thread.is_alive():
                logger.error("%s still grading after %.0f s at shutdown", thread.name, STOP_TIMEOUT_S)
        self._threads.clear()
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        self._unavailable_reason = "grading has stopped"

    def submit(self, submission_id: str, *, submitter: Submitter) -> None:
        if self._unavailable_reason is not None:
            raise BackendUnavailable(
                f"Grading is unavailable on this server: {self._unavailable_reason}",
                retry_after=UNAVAILABLE_RETRY_AFTER_S,
            )
        with self._admit:  # check and put as one step: concurrent requests cannot both take the last place
            if self._queue.waiting() >= self._queue_limit:
                raise QueueFull(
                    f"The grading queue is full ({self._queue_limit} submissions waiting); "
                    f"try again in {QUEUE_FULL_RETRY_AFTER_S} seconds.",
                    retry_after=QUEUE_FULL_RETRY_AFTER_S,
                )
            address, fresh, per_address = submitter.address, not submitter.established, self._queue_limit_per_address
            if fresh and per_address is not None and self._queue.waiting(address, where=_is_fresh) >= per_address:
                raise AddressQueueFull(per_address)
            if self._queue.waiting(address) >= self._address_share:
                raise AddressShareFull(self._address_share)
            self._queue.put(address, QueuedSubmission(submission_id, fresh=fresh), member=submitter.learner_id)

    def stop_grading(self, submission_id: str) -> None:
        self._stops.stop(submission_id)

    def health(self) -> BackendHealth:
        return BackendHealth(
            backend=self.name,
            available=self._unavailable_reason is None,
            sandbox=self._pool.sandbox if self._pool is not None else None,
            queue_depth=self._queue.waiting(),
            queue_limit=self._queue_limit,
            reason=self._unavailable_reason,
            problems_prepared=self._preparer.prepared if self._preparer is not None else None,
        )

    @property
    def activity(self) -> Activity:
        """What this process is grading or running (app.scratch's runs hold it too): the preparer waits for it."""
        return self._activity

    @property
    def pool(self) -> Pool | None:
        """The warm sandboxes, shared with scratch runs (app.scratch); None while grading is unavailable."""
        return self._pool

    def wait_idle(self) -> None:
        """Block until every queued submission has been graded (tests, benchmarks)."""
        self._queue.join()

    def _requeue_unfinished(self) -> None:
        with self._session_factory() as session:
            rows = session.execute(
                select(Submission.id, Submission.learner_id)
                .where(Submission.status.in_(IN_FLIGHT))
                .order_by(Submission.created_at)
            ).all()
        # Their addresses were not kept (only this process's memory had them): they take turns by learner.
        for row in rows:
            self._queue.put(f"learner:{row.learner_id}", QueuedSubmission(row.id, fresh=False), member=row.learner_id)
        if rows:
            logger.info("re-queued %d submission(s) left unfinished by a previous process", len(rows))

    def _work(self) -> None:
        assert self._pool is not None
        pool = self._pool
        while True:
            queued = self._queue.get()
            if queued is None:
                return  # stopping
            submission_id = queued.submission_id
            try:
                with self._activity.running():
                    grade_submission(
                        session_factory=self._session_factory,
                        submission_id=submission_id,
                        problems=self._problems,
                        pool=pool,
                        bus=self._bus,
                        grade=self._grade,
                        stops=self._stops,
                        slow_call_s=self._slow_call_s,
                    )
            except Exception:
                # The runner already turns grader failures into reports; this is the database failing under
                # it. The submission stays in flight in the database and is re-queued at the next start.
                logger.exception("could not grade submission %s", submission_id)
            finally:
                self._queue.task_done()

    def _grade_reference(self, problem: Problem, cancel: CancelToken) -> Report:
        """The preparer's grading of `problem`'s reference solution, on this backend's pool."""
        assert self._pool is not None, "the preparer starts after the pool"
        judge: GradeFunction = grade  # the pool is the Pool protocol's, as every grading's is (runner.py)
        return judge(problem, problem.reference_source(), pool=self._pool, cancel=cancel)

    def _idle(self) -> bool:
        """Nothing waiting and nothing being graded: the preparer may take its next step."""
        return self._activity.idle() and self._queue.waiting() == 0


def _worker_pool(size: int, unsafe: bool) -> Pool:
    return WorkerPool(size=size, unsafe=unsafe)
