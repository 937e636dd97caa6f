"""Scores back to the platform (Assignment and Grade Services), after each graded verdict, override and
extension.

Enqueue: in the transaction that stores a verdict (app.grading.runner) or changes a grade, one `lti_scores` row
per graded link the learner launched and the change touches, with the score the gradebook gives now (the link's
assignment after its late policy and overrides, or its single problem). A row's cause (`verdict:<submission>`,
`override:...`) is unique per link and learner, so a verdict stored twice (a redelivered grading) enqueues once.

Send: `PassbackSender`, a thread in each web process, claims due rows one at a time (an UPDATE that only an
unclaimed row matches, with a lease, so several processes never send one row twice), skips a row that a newer
score of the same learner and line item replaced, or whose score the platform already has, and POSTs the score
through pylti1p3. Network errors, 5xx, 408 and 429 are retried with back-off (5 s doubling to an hour, 10
tries); other refusals fail at once. Each row keeps the platform's status code and the last error: the
instructor's course page shows what was sent, what waits and what failed."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

import requests
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from app.courses.gradebook import build_gradebook
from app.courses.models import AssignmentProblem, Course, CourseMember
from app.db import SessionFactory
from app.lti.adapters import CachingConnector, http_session
from app.lti.models import LtiGradeTarget, LtiPlatform, LtiResourceLink, LtiScore
from app.lti.runtime import LtiRuntime
from app.models import Solved, Submission, utcnow

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 10
FIRST_RETRY = timedelta(seconds=5)
LONGEST_RETRY = timedelta(hours=1)
CLAIM_LEASE = timedelta(minutes=2)  # longer than one send with its token request (two 10 s timeouts)
POLL_S = 1.0
RETRIED_STATUSES = {408, 425, 429, 500, 502, 503, 504}
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"


@dataclass(frozen=True)
class LinkScore:
    given: float
    maximum: float
    progress: str  # Initialized, InProgress or Completed
    comment: str


def cause_stamp() -> str:
    """Makes a repeated change (a second override of one cell) a cause of its own."""
    return utcnow().strftime("%Y%m%dT%H%M%S.%f")


# --- what a link scores --------------------------------------------------------------------------------------


def link_score(*, session: Session, link: LtiResourceLink, learner_id: str) -> LinkScore | None:
    """The score for `learner_id` on `link` as the gradebook has it now; None for a link that opens nothing."""
    if link.assignment_id is not None:
        course = session.get(Course, link.course_id)
        member = session.scalars(select(CourseMember).where(CourseMember.course_id == link.course_id,
                                                            CourseMember.learner_id == learner_id)).first()
        if course is None or member is None:
            return None
        book = build_gradebook(session=session, course=course, member_ids=[member.id],
                               assignment_ids=[link.assignment_id])
        if not book.rows or not book.rows[0].results:
            return None
        result = book.rows[0].results[0]
        attempted = any(cell.attempts or cell.solved for cell in result.cells)
        progress = ("Completed" if result.solved == len(result.cells) else "InProgress" if attempted
                    else "Initialized")
        late = f"; {result.late} late" if result.late else ""
        return LinkScore(given=round(result.points, 4), maximum=float(len(result.cells)), progress=progress,
                         comment=f"{result.solved} of {len(result.cells)} problems solved{late} (PaperLab)")
    if link.problem is not None:
        solved = session.get(Solved, (learner_id, link.problem)) is not None
        return LinkScore(given=1.0 if solved else 0.0, maximum=1.0, progress="Completed" if solved else "InProgress",
                         comment="Solved (PaperLab)" if solved else "Not solved yet (PaperLab)")
    return None


# --- enqueueing ----------------------------------------------------------------------------------------------


def _enqueue(session: Session, link: LtiResourceLink, learner_id: str, cause: str) -> None:
    score = link_score(session=session, link=link, learner_id=learner_id)
    if score is None:
        return
    cause = cause[:120]
    if session.scalar(select(func.count()).where(LtiScore.link_id == link.id, LtiScore.learner_id == learner_id,
                                                 LtiScore.cause == cause)):
        return  # this cause was enqueued already (a verdict stored twice): once is enough
    session.add(LtiScore(link_id=link.id, learner_id=learner_id, cause=cause, score_given=score.given,
                         score_maximum=score.maximum, activity_progress=score.progress, comment=score.comment,
                         timestamp=utcnow(), status="pending", next_attempt_at=utcnow()))


def enqueue_after_verdict(*, session: Session, submission: Submission) -> None:
    """Called in the verdict's transaction: a score for each graded link this learner launched that opens the
    problem, or an assignment holding it. One indexed query when the learner never came through LTI."""
    in_assignment = select(AssignmentProblem.assignment_id).where(AssignmentProblem.problem == submission.problem)
    links = session.scalars(
        select(LtiResourceLink).join(LtiGradeTarget, LtiGradeTarget.link_id == LtiResourceLink.id)
        .where(LtiGradeTarget.learner_id == submission.learner_id,
               or_(LtiResourceLink.problem == submission.problem, LtiResourceLink.assignment_id.in_(in_assignment)))
    ).all()
    for link in links:
        _enqueue(session, link, submission.learner_id, f"verdict:{submission.id}")


def rescore_member(*, session: Session, course_id: str, member_id: str, cause: str) -> None:
    """After an override or an extension: the member's scores on every graded link of the course, again."""
    member = session.get(CourseMember, member_id)
    if member is None or member.learner_id is None:
        return
    links = session.scalars(
        select(LtiResourceLink).join(LtiGradeTarget, LtiGradeTarget.link_id == LtiResourceLink.id)
        .where(LtiResourceLink.course_id == course_id, LtiGradeTarget.learner_id == member.learner_id)).all()
    for link in links:
        _enqueue(session, link, member.learner_id, cause)
    session.commit()


def rescore_assignment(*, session: Session, assignment_id: str, cause: str) -> None:
    """After an assignment changed (its due time, policy or problems): every launched learner's score again."""
    rows = session.execute(
        select(LtiResourceLink, LtiGradeTarget.learner_id)
        .join(LtiGradeTarget, LtiGradeTarget.link_id == LtiResourceLink.id)
        .where(LtiResourceLink.assignment_id == assignment_id)).all()
    for link, learner_id in rows:
        _enqueue(session, link, learner_id, cause)
    session.commit()


# --- sending -------------------------------------------------------------------------------------------------


class SendFailed(Exception):
    def __init__(self, message: str, *, status: int | None, retry: bool) -> None:
        super().__init__(message)
        self.status, self.retry = status, retry


def backoff(attempts: int) -> timedelta:
    delay: timedelta = min(LONGEST_RETRY, FIRST_RETRY * (2 ** max(0, attempts - 1)))
    return delay


def claim_next(session_factory: SessionFactory) -> str | None:
    """The id of one due score, claimed for this process (None when nothing is due)."""
    now = utcnow()
    with session_factory() as session:
        candidates = session.scalars(
            select(LtiScore.id).where(LtiScore.status == "pending", LtiScore.next_attempt_at <= now,
                                      or_(LtiScore.claimed_until.is_(None), LtiScore.claimed_until < now))
            .order_by(LtiScore.created_at).limit(10)).all()
        for score_id in candidates:
            taken = session.execute(
                update(LtiScore).where(LtiScore.id == score_id, LtiScore.status == "pending",
                                       or_(LtiScore.claimed_until.is_(None), LtiScore.claimed_until < now))
                .values(claimed_until=now + CLAIM_LEASE))
            session.commit()
            if getattr(taken, "rowcount", 0) == 1:
                return score_id
    return None


def send_one(runtime: LtiRuntime, score_id: str) -> str:
    """Send a claimed score; returns its status afterwards (sent, pending, failed or superseded)."""
    with runtime.session_factory() as session:
        score = session.get(LtiScore, score_id)
        if score is None or score.status != "pending":
            return score.status if score is not None else "gone"
        link = session.get(LtiResourceLink, score.link_id)
        target = session.get(LtiGradeTarget, (score.link_id, score.learner_id))
        platform = session.get(LtiPlatform, link.platform_id) if link is not None else None
        if link is None or target is None or platform is None:
            return _finish(session, score, "failed", error="the link or the learner's launch is gone")
        newer = session.scalar(select(func.count()).where(
            LtiScore.link_id == score.link_id, LtiScore.learner_id == score.learner_id,
            LtiScore.status.in_(("pending", "sent")), LtiScore.timestamp > score.timestamp))
        if newer:
            return _finish(session, score, "superseded", error="a newer score for this learner replaced it")
        last = session.scalars(select(LtiScore).where(
            LtiScore.link_id == score.link_id, LtiScore.learner_id == score.learner_id, LtiScore.status == "sent")
            .order_by(LtiScore.timestamp.desc()).limit(1)).first()
        if last is not None and (last.score_given, last.score_maximum, last.activity_progress) == (
                score.score_given, score.score_maximum, score.activity_progress):
            return _finish(session, score, "superseded",
                           error=f"the platform has this score already (sent {last.sent_at:%Y-%m-%d %H:%M:%S} UTC)")
        score.attempts += 1
        try:
            status = _post(runtime, platform, link, target.sub, score)
        except SendFailed as exc:
            if exc.retry and score.attempts < MAX_ATTEMPTS:
                score.next_attempt_at = utcnow() + backoff(score.attempts)
                score.claimed_until, score.last_error, score.response_status = None, str(exc)[:2000], exc.status
                session.commit()
                return "pending"
            return _finish(session, score, "failed", error=str(exc), code=exc.status)
        score.sent_at = utcnow()
        return _finish(session, score, "sent", code=status)


def _finish(session: Session, score: LtiScore, status: str, *, error: str | None = None,
            code: int | None = None) -> str:
    score.status, score.claimed_until = status, None
    if error is not None:
        score.last_error = error[:2000]
    if code is not None:
        score.response_status = code
    session.commit()
    return status


def _post(runtime: LtiRuntime, platform: LtiPlatform, link: LtiResourceLink, sub: str, score: LtiScore) -> int:
    scopes = link.ags_scopes.split()
    if SCORE_SCOPE not in scopes:
        raise SendFailed("the platform did not grant the score scope for this link", status=None, retry=False)
    with http_session() as http:
        return _post_over(runtime.connector(platform, http), link, sub, score, scopes)


def _post_over(connector: CachingConnector, link: LtiResourceLink, sub: str, score: LtiScore,
               scopes: list[str]) -> int:
    service = AssignmentsGradesService(connector, {"scope": scopes,  # type: ignore[typeddict-item]
                                                   "lineitem": link.lineitem_url or "",
                                                   "lineitems": link.lineitems_url or ""})
    grade = (Grade().set_score_given(score.score_given).set_score_maximum(score.score_maximum)
             .set_activity_progress(score.activity_progress).set_grading_progress("FullyGraded")
             .set_timestamp(_iso_millis(score.timestamp)).set_user_id(sub).set_comment(score.comment))
    lineitem = None
    if not link.lineitem_url:
        if LINEITEM_SCOPE not in scopes or not link.lineitems_url:
            raise SendFailed("the link has no line item and the platform lets PaperLab make none", status=None,
                             retry=False)
        lineitem = (LineItem().set_tag("paperlab").set_resource_link_id(link.resource_link_id)
                    .set_score_maximum(score.score_maximum).set_label(link.title or "PaperLab"))
    try:
        response = service.put_grade(grade, lineitem)
    except LtiServiceException as exc:
        code = _status_of(exc)
        if code == 401:
            connector.forget_tokens(scopes)  # a token the platform no longer accepts: ask for a new one next time
        raise SendFailed(f"the platform answered {code}: {exc}", status=code,
                         retry=code is None or code in RETRIED_STATUSES or code == 401) from None
    except requests.JSONDecodeError:
        return 200  # the platform took the score (2xx) and answered a body that is not JSON: nothing to read
    except (requests.RequestException, LtiException) as exc:
        raise SendFailed(f"the platform could not be reached: {exc}", status=None, retry=True) from None
    if lineitem is not None and lineitem.get_id():
        link.lineitem_url = lineitem.get_id()  # committed with the score's status: the next send skips the lookup
    headers = response.get("headers") or {}
    return int(headers.get("x-status", 200)) if isinstance(headers, dict) and "x-status" in headers else 200


def _status_of(exc: LtiServiceException) -> int | None:
    response = exc.args[1] if len(exc.args) > 1 else getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def _iso_millis(moment: datetime) -> str:
    """AGS wants ISO 8601 with sub-second precision and an offset: 2027-03-01T17:00:00.123+00:00."""
    return moment.isoformat(timespec="milliseconds")


def summary(*, session: Session, course_id: str) -> dict[str, int]:
    """Scores of this course's links by status (the course page's LTI section)."""
    rows = session.execute(
        select(LtiScore.status, func.count()).join(LtiResourceLink, LtiResourceLink.id == LtiScore.link_id)
        .where(LtiResourceLink.course_id == course_id).group_by(LtiScore.status)).all()
    return {status: int(n) for status, n in rows}


def failed_scores(*, session: Session, course_id: str, limit: int = 20) -> list[LtiScore]:
    return list(session.scalars(
        select(LtiScore).join(LtiResourceLink, LtiResourceLink.id == LtiScore.link_id)
        .where(LtiResourceLink.course_id == course_id, LtiScore.status == "failed")
        .order_by(LtiScore.created_at.desc()).limit(limit)))


def retry_failed(*, session: Session, course_id: str) -> int:
    """Put the course's failed scores back in the queue (after the platform's problem was fixed)."""
    links = select(LtiResourceLink.id).where(LtiResourceLink.course_id == course_id)
    result = session.execute(update(LtiScore).where(and_(LtiScore.link_id.in_(links), LtiScore.status == "failed"))
                             .values(status="pending", attempts=0, next_attempt_at=utcnow(), claimed_until=None))
    session.commit()
    return int(getattr(result, "rowcount", 0) or 0)


class PassbackSender:
    """The web process's sender thread: sends due scores, then waits `POLL_S` (or until `wake()`)."""

    def __init__(self, runtime: LtiRuntime) -> None:
        self._runtime = runtime
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="paperlab-lti-passback", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=15)

    def wake(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                score_id = claim_next(self._runtime.session_factory)
                if score_id is not None:
                    send_one(self._runtime, score_id)
                    continue
            except Exception:  # the database or the library broke: log it, and try again after a pause
                logger.exception("LTI score passback failed; trying again shortly")
            self._wake.wait(POLL_S)
            self._wake.clear()
