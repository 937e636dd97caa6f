"""Grade one stored submission: the same function for every backend (a thread here, a Celery task there).

Idempotent: only a submission still `queued` or `running` (left by a dead process) is graded; a finished one
is left alone, so a duplicate delivery costs nothing. Whatever happens, the submission ends `done` (the grader
produced a verdict) or `error` (the grader itself broke, with a report that says so and does not blame the
learner); it is never left `running` by a grader exception."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import ColumnElement, and_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import grader
from app.db import SessionFactory, transaction
from app.grading.base import Pool
from app.grading.call_watch import SLOW_CALL_S, CallWatch
from app.grading.event_bus import EventBus, GradingEvent
from app.grading.stops import StopRegistry, StopWatcher
from app.instructor.records import record_verdict
from app.lti.passback import enqueue_after_verdict
from app.models import FINISHED, IN_FLIGHT, Solved, Submission, utcnow
from grader import CallStarted, CancelToken, CheckResult, Problem, Report, ReportError, summarise

logger = logging.getLogger(__name__)

# A submission whose grading was cut short this many times (the process died under it each time) is not tried
# again: it may be what kills the process.
MAX_ATTEMPTS = 3


class GradeFunction(Protocol):
    """grader.judge.grade's signature."""

    def __call__(
        self,
        problem: Problem,
        code: str,
        *,
        pool: Any,
        on_check: Callable[[CheckResult], None] | None = None,
        cancel: CancelToken | None = None,
        on_call: Callable[[CallStarted | None], None] | None = None,
        on_verdict: Callable[[bool], None] | None = None,
    ) -> Report: ...


@dataclass(frozen=True)
class _Claimed:
    id: str
    problem: str
    code: str
    attempts: int
    solved: bool  # an earlier, interrupted grading of it told "solved" (its required checks had all passed)


def grade_submission(
    *,
    session_factory: SessionFactory,
    submission_id: str,
    problems: Mapping[str, Problem],
    pool: Pool,
    bus: EventBus,
    grade: GradeFunction | None = None,
    stale_before: datetime | None = None,
    stops: StopWatcher | None = None,
    slow_call_s: float = SLOW_CALL_S,
) -> None:
    """`stale_before`: take over a `running` submission only if its grading started before then (its grader
    is presumed dead); None takes over any (one process, restarting). `stops`: where the learner's Stop reaches
    this grading (app.grading.stops); `slow_call_s`: a learner call running this long is named on the page
    (a `call` event, app.grading.call_watch)."""
    claimed = _claim(session_factory, submission_id, stale_before=stale_before)
    if claimed is None:
        logger.info("submission %s is already graded (or gone); not grading it again", submission_id)
        return
    problem = problems.get(claimed.problem)
    total = len(problem.checks) if problem is not None else 0
    bus.publish(submission_id, GradingEvent("status", {"status": "running", "total": total}))
    finished_checks: list[CheckResult] = []

    def on_check(result: CheckResult) -> None:
        finished_checks.append(result)
        payload = {"check": result.model_dump(mode="json"), "done": len(finished_checks), "total": total}
        bus.publish(submission_id, GradingEvent("check", payload))

    solved_early = False  # the judge told "solved" when the required checks were done; the report agrees

    def on_verdict(solved: bool) -> None:
        # The notes unlock now, while the advisory checks (paper-scale experiments) still run: they decide
        # nothing, so the learner does not wait for them. The page hears it only once the unlock is stored.
        nonlocal solved_early
        solved_early = solved
        if solved and not _store_solved(session_factory, submission_id):
            return
        bus.publish(submission_id, GradingEvent("verdict", {"solved": solved}))

    started = time.perf_counter()
    status = "done"
    try:
        if claimed.attempts > MAX_ATTEMPTS:
            interrupted = (f"grading this submission was interrupted {claimed.attempts - 1} times (the grading "
                           "process stopped while it ran), so it was not tried again")
            if claimed.solved and problem is not None:
                raise GraderGaveUp(f"{interrupted}. An earlier grading had passed every required check, so it stays "
                                   "solved; the optional checks did not run", told_solved=True)
            raise GraderGaveUp(interrupted)
        if problem is None:
            raise GraderGaveUp(f"the problem '{claimed.problem}' is no longer available on this server")
        grade_function: GradeFunction = grade or grader.grade

        def publish_call(data: dict[str, Any]) -> None:
            bus.publish(submission_id, GradingEvent("call", data))

        with (stops or StopRegistry()).watch(submission_id) as token, \
                CallWatch(publish_call, slow_after_s=slow_call_s) as calls:
            report = grade_function(problem, claimed.code, pool=pool, on_check=on_check, cancel=token,
                                    on_call=calls.on_call, on_verdict=on_verdict)
        if report.error is not None and report.error.kind in ("grader", "sandbox"):
            status = "error"
    except Exception as exc:
        if not isinstance(exc, GraderGaveUp):
            logger.exception("grader failed on submission %s (%s)", submission_id, claimed.problem)
        told_earlier = isinstance(exc, GraderGaveUp) and exc.told_solved
        report = grader_failure_report(
            problem=claimed.problem,
            message=_failure_message(exc),
            checks=_passed_when_told(problem) if told_earlier and problem is not None else finished_checks,
            sandbox=getattr(pool, "sandbox", "bubblewrap"),
            duration_ms=(time.perf_counter() - started) * 1000,
            verdict=solved_early or told_earlier,
        )
        status = "error"
    _store_verdict(session_factory, submission_id, report=report, status=status, problem=problem)
    bus.publish(submission_id, GradingEvent("finished", {"status": status}))


def stop_waiting(
    *, session_factory: SessionFactory, submission_id: str, problem: Problem | None, bus: EventBus, sandbox: Any
) -> bool:
    """The learner stopped a submission still waiting in the queue: store its "stopped by you" verdict now (no
    check ran) and end its event streams. False when it is no longer waiting (a grader has it, or it is done);
    the grader then stops it through its StopWatcher."""
    if _claim(session_factory, submission_id, stale_before=_NEVER) is None:
        return False
    checks = [
        CheckResult(id=check.id, title=check.title, group=check.group, required=check.required, status="skipped",
                    message="not run: stopped by you")
        for check in (problem.checks if problem is not None else ())
    ]
    report = summarise(
        problem=problem.slug if problem is not None else "",
        checks=checks,
        experiment=None,
        limits=problem.limits.as_report() if problem is not None else {},
        sandbox="none" if sandbox == "none" else "bubblewrap",
        duration_ms=0.0,
        stopped=True,
    )
    _store_verdict(session_factory, submission_id, report=report, status="done", problem=problem)
    bus.publish(submission_id, GradingEvent("finished", {"status": "done"}))
    return True


# With this as `stale_before`, _claim takes only a `queued` submission (no grading started before it).
_NEVER = datetime(1970, 1, 1, tzinfo=UTC)


class GraderGaveUp(Exception):
    """The grader decided not to grade (not a bug, not the learner's fault); the message says why. `told_solved`:
    an earlier grading of it had told it solved, and that verdict stands."""

    def __init__(self, message: str, *, told_solved: bool = False) -> None:
        super().__init__(message)
        self.told_solved = told_solved


def _passed_when_told(problem: Problem) -> list[CheckResult]:
    """The required checks of a submission given up after an earlier grading told it solved. That grading's
    results were streamed, not stored, but the judge tells "solved" only once every required check has passed, so
    the report keeps the verdict the page showed and the notes it unlocked, and says where it comes from."""
    return [
        CheckResult(id=check.id, title=check.title, group=check.group, required=True, status="passed",
                    message="passed in an earlier grading of this submission, which was interrupted after its "
                    "verdict")
        for check in problem.checks if check.required
    ]


def _failure_message(exc: Exception) -> str:
    if isinstance(exc, GraderGaveUp) and exc.told_solved:
        return f"Your code was not graded again: {exc}."
    if isinstance(exc, GraderGaveUp):
        return f"Your code was not graded: {exc}. This is not a problem with your code; please run it again."
    return (
        f"The grader failed while grading your submission ({type(exc).__name__}: {exc}). "
        "This is a bug in the grader, not in your code; it has been logged."
    )


def grader_failure_report(
    *, problem: str, message: str, checks: list[CheckResult], sandbox: Any, duration_ms: float, verdict: bool = False
) -> Report:
    """`verdict`: the judge had told this grading solved before the grader failed (its advisory checks were
    running): the learner keeps it, as the page already showed it."""
    return summarise(
        problem=problem,
        checks=list(checks),
        experiment=None,
        limits={},
        sandbox="none" if sandbox == "none" else "bubblewrap",
        duration_ms=duration_ms,
        error=ReportError(kind="grader", message=message),
        verdict=verdict,
    )


def _claim(
    session_factory: SessionFactory, submission_id: str, *, stale_before: datetime | None = None
) -> _Claimed | None:
    """Mark the submission running, atomically, unless it is already finished (or, with `stale_before`,
    being graded by someone else whose lease has not run out): two graders can never both claim it."""
    claimable: ColumnElement[bool] = Submission.status.in_(IN_FLIGHT)
    if stale_before is not None:
        claimable = or_(
            Submission.status == "queued",
            and_(Submission.status == "running", Submission.started_at < stale_before),
        )
    with transaction(session_factory) as session:
        result = session.execute(
            update(Submission)
            .where(Submission.id == submission_id, claimable)
            .values(status="running", started_at=utcnow(), attempts=Submission.attempts + 1)
            .execution_options(synchronize_session=False)
        )
        if getattr(result, "rowcount", 0) == 0:
            return None
        row = session.execute(
            select(Submission.problem, Submission.code, Submission.attempts, Submission.solved).where(
                Submission.id == submission_id
            )
        ).one()
        return _Claimed(id=submission_id, problem=row.problem, code=row.code, attempts=row.attempts,
                        solved=row.solved)


def _store_solved(session_factory: SessionFactory, submission_id: str) -> bool:
    """Record that the submission's learner has solved its problem, before its report is stored (the advisory
    checks still run). False when that could not be stored: the report stores it when the grading ends."""
    try:
        with transaction(session_factory) as session:
            submission = session.get(Submission, submission_id)
            if submission is None or submission.status in FINISHED:
                return False  # deleted, or another delivery stored its whole verdict already
            submission.solved = True  # the notes show this run's charts once its report is stored
            _add_solved(session, submission)
        return True
    except IntegrityError:  # another submission of the same learner and problem recorded it at the same moment
        return True
    except Exception:  # noqa: BLE001 - the grading goes on; the report records the solve when it is stored
        logger.exception("could not record the early verdict of submission %s", submission_id)
        return False


def _add_solved(session: Session, submission: Submission) -> None:
    if session.get(Solved, (submission.learner_id, submission.problem)) is None:
        session.add(Solved(learner_id=submission.learner_id, problem=submission.problem, submission_id=submission.id))
        session.flush()


def _store_verdict(
    session_factory: SessionFactory, submission_id: str, *, report: Report, status: str, problem: Problem | None
) -> None:
    with transaction(session_factory) as session:
        submission = session.get(Submission, submission_id)
        if submission is None or submission.status in FINISHED:
            return  # deleted, or another delivery of the same submission stored its verdict first
        submission.status = status
        submission.report = report.model_dump_json()
        submission.solved = report.solved
        submission.stopped = report.stopped
        submission.checks_passed = report.passed_count
        submission.checks_total = len(report.checks)
        submission.finished_at = utcnow()
        record_verdict(session=session, submission=submission, report=report, problem=problem)
        if report.solved:
            _add_solved(session, submission)
        session.flush()
        enqueue_after_verdict(session=session, submission=submission)  # LTI: the new score back to the LMS
