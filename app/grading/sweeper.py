"""Nothing submitted is lost when grading runs on other machines: a background thread of the web server that

- queues again a submission left `running` past its lease (the worker grading it died: machine gone, SIGKILL,
  out of memory), so another worker takes it; after `runner.MAX_ATTEMPTS` interrupted gradings the runner stores
  a report that says so instead of trying again;
- enqueues a `queued` submission the broker never got (the broker was down at submit time, or the web process
  died between storing it and enqueueing it).

The database is the source of truth. A grader's lease is the problem's own time limits plus a margin, so a live,
slow grading is never taken away from its worker. Several web processes may sweep at once: the requeue is a
conditional UPDATE, and an enqueue marker in Redis (set NX) keeps them from enqueueing the same submission twice."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy import select, update
from sqlalchemy.exc import SQLAlchemyError

from app.db import SessionFactory, transaction
from app.models import Submission, utcnow
from grader import Limits, Problem

logger = logging.getLogger(__name__)

# A submission younger than this is still being handed to the broker by the request that stored it.
ENQUEUE_GRACE_S = 3.0
# Bound the work of one sweep; the next sweep continues.
SWEEP_BATCH = 500


class BrokerUnreachable(Exception):
    """The grading queue could not be reached; what was to be enqueued stays queued in the database."""


class Enqueuer(Protocol):
    def enqueue(self, submission_id: str, *, unless_marked: bool = False) -> bool:
        """Hand the id to the broker; with `unless_marked`, only if no enqueue is on record. True if sent."""
        ...

    def marked(self, submission_ids: list[str]) -> list[bool]: ...


def grading_lease_s(problem: Problem | None, margin_s: float, wall_factor: float | None = None) -> float:
    """How long a grading may hold a submission before it counts as abandoned: its limits count the learner's own
    time, so on a busy machine a grading may last up to `wall_ceiling_factor` times them by the wall clock.
    `wall_factor` caps that factor (settings.grading_lease_wall_factor): past it, a grading on a machine loaded
    beyond it may be taken over and graded twice, which gives the same verdict (limits count the learner's own
    time), while a dead worker's submission waits that much less."""
    limits = problem.limits if problem is not None else Limits.model_validate({})
    budgets = limits.load_timeout_s + limits.total_timeout_s + limits.advisory_budget_s
    factor = limits.wall_ceiling_factor if wall_factor is None else min(wall_factor, limits.wall_ceiling_factor)
    return budgets * factor + margin_s


def stale_before(problem: Problem | None, margin_s: float, *, wall_factor: float | None = None,
                 now: datetime | None = None) -> datetime:
    return (now or utcnow()) - timedelta(seconds=grading_lease_s(problem, margin_s, wall_factor))


@dataclass(frozen=True)
class SweepResult:
    requeued: int = 0
    enqueued: int = 0


class Sweeper:
    def __init__(
        self,
        *,
        session_factory: SessionFactory,
        problems: Mapping[str, Problem],
        enqueuer: Enqueuer,
        interval_s: float,
        lease_margin_s: float,
        lease_wall_factor: float | None = None,
    ) -> None:
        self._session_factory = session_factory
        self._problems = problems
        self._enqueuer = enqueuer
        self._interval_s = interval_s
        self._lease_margin_s = lease_margin_s
        self._lease_wall_factor = lease_wall_factor
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="paperlab-sweeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self) -> None:
        while not self._stopping.is_set():  # the first sweep at once: pick up what a previous process left
            try:
                result = self.sweep()
                if result.requeued or result.enqueued:
                    logger.info(
                        "sweeper: requeued %d abandoned and enqueued %d waiting submission(s)",
                        result.requeued,
                        result.enqueued,
                    )
            except BrokerUnreachable as exc:
                logger.warning("sweeper: the grading queue is unreachable (%s); retrying", exc)
            except SQLAlchemyError:
                logger.exception("sweeper: database error; retrying")
            self._stopping.wait(self._interval_s)

    def sweep(self) -> SweepResult:
        requeued = self._requeue_abandoned()
        return SweepResult(requeued=requeued, enqueued=self._enqueue_waiting())

    def _requeue_abandoned(self) -> int:
        now = utcnow()
        with self._session_factory() as session:
            running = session.execute(
                select(Submission.id, Submission.problem, Submission.started_at)
                .where(Submission.status == "running")
                .limit(SWEEP_BATCH)
            ).all()
        requeued = 0
        for row in running:
            cutoff = stale_before(self._problems.get(row.problem), self._lease_margin_s,
                                  wall_factor=self._lease_wall_factor, now=now)
            if row.started_at is None or row.started_at >= cutoff:
                continue
            with transaction(self._session_factory) as session:
                # Only if nobody claimed it since we looked (same started_at).
                result = session.execute(
                    update(Submission)
                    .where(
                        Submission.id == row.id,
                        Submission.status == "running",
                        Submission.started_at == row.started_at,
                    )
                    .values(status="queued")
                    .execution_options(synchronize_session=False)
                )
            if getattr(result, "rowcount", 0):
                logger.warning("submission %s was abandoned by its grader; queued again", row.id)
                requeued += 1
                self._enqueuer.enqueue(row.id)  # queued in the database even if this raises
        return requeued

    def _enqueue_waiting(self) -> int:
        cutoff = utcnow() - timedelta(seconds=ENQUEUE_GRACE_S)
        with self._session_factory() as session:
            waiting = list(
                session.scalars(
                    select(Submission.id)
                    .where(Submission.status == "queued", Submission.created_at < cutoff)
                    .order_by(Submission.created_at)
                    .limit(SWEEP_BATCH)
                )
            )
        if not waiting:
            return 0
        enqueued = 0
        for submission_id, marked in zip(waiting, self._enqueuer.marked(waiting), strict=True):
            if not marked and self._enqueuer.enqueue(submission_id, unless_marked=True):
                enqueued += 1
        return enqueued
