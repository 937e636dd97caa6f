"""Grading again what a changed problem made stale.

- `plan_regrades` picks, per problem, the latest attempt of every learner (or every attempt) whose verdict was
  graded by another battery than the one this server loaded, and records a `pending` Regrade for it. Planning
  twice plans nothing twice (one Regrade per attempt and battery).
- `feed_one` turns one pending Regrade into a submission of its own (same learner, same code) and hands it to
  the grading path, only while no learner's submission is waiting: learners go first, and a learner's Run
  waits at most for one regrading already under way. A learner with a run in flight is skipped for now (the
  one-in-flight rule of the submissions table).
- The runner grades it like any other submission; app.instructor.records marks the Regrade done. The old
  attempt and its report are left as they were, and a regrade can only add a `solved` row, never remove one:
  notes once unlocked stay unlocked."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from sqlalchemy import and_, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db import SessionFactory
from app.errors import AppError
from app.grading.base import GradingBackend, Submitter
from app.instructor.battery import battery_hash
from app.instructor.models import Regrade, Verdict
from app.models import Solved, Submission
from grader import Problem

logger = logging.getLogger(__name__)

REGRADE_ADDRESS = "regrade"  # the submitter address regradings take turns under in the fair queue
FEED_BATCH = 20
IDLE_WAIT_S = 0.25


class RegradeProgress(BaseModel):
    pending: int = 0
    queued: int = 0
    done: int = 0

    @property
    def running(self) -> bool:
        return self.pending + self.queued > 0


def plan_regrades(
    *, session: Session, problems: Mapping[str, Problem], slugs: Iterable[str] | None = None,
    all_attempts: bool = False,
) -> int:
    """Record a pending Regrade for every stale attempt picked; returns how many were new."""
    planned = 0
    for slug in list(slugs) if slugs is not None else list(problems):
        current = battery_hash(problems[slug])
        learner_attempts = and_(Verdict.problem == slug, Verdict.regrade.is_(False))
        query = select(Verdict).where(learner_attempts, Verdict.battery != current)
        if not all_attempts:
            latest = (
                select(Verdict.learner_id, func.max(Verdict.submitted_at).label("latest"))
                .where(learner_attempts)
                .group_by(Verdict.learner_id)
                .subquery("latest")
            )
            query = query.join(latest, and_(latest.c.learner_id == Verdict.learner_id,
                                            latest.c.latest == Verdict.submitted_at))
        stale = session.scalars(query).all()
        already = set(session.scalars(
            select(Regrade.submission_id).where(Regrade.problem == slug, Regrade.to_battery == current)))
        for verdict in stale:
            if verdict.submission_id in already:
                continue
            session.add(Regrade(submission_id=verdict.submission_id, learner_id=verdict.learner_id, problem=slug,
                                from_battery=verdict.battery, to_battery=current, old_passed=verdict.passed,
                                old_total=verdict.total))
            planned += 1
    session.commit()
    return planned


def feed_one(*, session_factory: SessionFactory, submit: Callable[[str, Submitter], None],
             learners_waiting: Callable[[], int]) -> bool:
    """Hand one pending Regrade to `submit`; False when none could go now (learners waiting, nothing pending,
    or every pending learner has a run in flight)."""
    if learners_waiting() > 0:
        return False
    with session_factory() as session:
        for regrade in session.scalars(
            select(Regrade).where(Regrade.status == "pending").order_by(Regrade.created_at).limit(FEED_BATCH)
        ).all():
            original = session.get(Submission, regrade.submission_id)
            if original is None:  # deleted since it was planned
                regrade.status = "done"
                session.commit()
                continue
            copy = Submission(learner_id=original.learner_id, problem=original.problem, code=original.code,
                              status="queued")
            session.add(copy)
            try:
                session.flush()
            except IntegrityError:  # this learner has a run in flight: theirs goes first
                session.rollback()
                continue
            regrade.regrade_submission_id, regrade.status = copy.id, "queued"
            session.commit()
            try:
                submit(copy.id, Submitter(learner_id=original.learner_id, address=REGRADE_ADDRESS))
            except AppError as exc:  # queue full, grading down: back to pending, nothing left in flight
                logger.warning("regrade of %s not enqueued: %s", original.id, exc.detail)
                regrade.status, regrade.regrade_submission_id = "pending", None
                session.delete(copy)
                session.commit()
                return False
            return True
    return False


def mark_done(*, session: Session, submission_id: str) -> bool:
    """Called as `submission_id`'s verdict is stored: True (and the Regrade done) when it is a regrading."""
    regrade = session.scalars(select(Regrade).where(Regrade.regrade_submission_id == submission_id)).first()
    if regrade is None:
        return False
    regrade.status = "done"
    return True


def progress(*, session: Session) -> RegradeProgress:
    counts = dict(session.execute(select(Regrade.status, func.count()).group_by(Regrade.status)).all())
    return RegradeProgress(**{status: int(n) for status, n in counts.items()})


def regrade_note(*, session: Session, submission_id: str) -> dict[str, Any] | None:
    """What the learner's page of `submission_id` says about its regrading, if it had one that finished.
    `solved_now` only when the regrading solves it and the attempt did not; `still_solves` when both did."""
    row = session.execute(
        select(Regrade, Submission)
        .join(Submission, Submission.id == Regrade.regrade_submission_id)
        .where(Regrade.submission_id == submission_id, Regrade.status == "done")
        .order_by(Regrade.created_at.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    regrade, copy = row
    original = session.get(Submission, submission_id)
    solved_before = bool(original is not None and original.solved)
    return {
        "old": f"{regrade.old_passed}/{regrade.old_total}",
        "new": f"{copy.checks_passed or 0}/{copy.checks_total or 0}",
        "submission_id": copy.id,
        "solved_now": copy.solved and not solved_before,
        "still_solves": copy.solved and solved_before,
        "no_longer_solves": solved_before and not copy.solved,
        "notes_unlocked": session.get(Solved, (copy.learner_id, copy.problem)) is not None,
    }


def regrade_origins(*, session: Session, submission_ids: Iterable[str]) -> dict[str, Submission]:
    """For each of `submission_ids` that is a regrading: the learner's attempt it graded again."""
    ids = list(submission_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(Regrade.regrade_submission_id, Submission)
        .join(Submission, Submission.id == Regrade.submission_id)
        .where(Regrade.regrade_submission_id.in_(ids))
    ).all()
    return {copy_id: original for copy_id, original in rows if copy_id is not None}


@dataclass
class RegradeFeeder:
    """The web process's feeder: a thread that feeds pending Regrades to the app's backend while any are
    pending, started by the instructor's button (and idle otherwise)."""

    session_factory: SessionFactory
    backend: GradingBackend
    _thread: threading.Thread | None = None
    _stop: threading.Event | None = None

    def ensure_running(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="paperlab-regrade-feeder", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def _run(self) -> None:
        assert self._stop is not None
        while not self._stop.is_set():
            try:
                fed = feed_one(session_factory=self.session_factory,
                               submit=lambda sid, who: self.backend.submit(sid, submitter=who),
                               learners_waiting=lambda: self.backend.health().queue_depth)
                if not fed:
                    with self.session_factory() as session:
                        if progress(session=session).pending == 0:
                            return
                    self._stop.wait(IDLE_WAIT_S)
            except Exception:  # the database went away: log, and let the next button press start again
                logger.exception("the regrade feeder stopped")
                return
