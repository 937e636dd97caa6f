"""How a new submission is admitted: valid Unicode within the size limit, the per-address and per-learner rate
limits, one in flight per learner, stored before it is graded, then handed to the grading backend (which keeps
each address to a few waiting). A submission the backend refuses (queue full, grading down) is removed again:
the 429 or 503 means "not accepted", and the page still has the code.

The per-address limits count only learners who are not established (app.trust): a class behind one NAT address
is bounded learner by learner. Whether the learner is established costs one primary-key read, and the
per-address rate is counted in memory right after it, before anything else touches the database, so a flood
with a fresh cookie per request (a fresh learner each time, whom the per-learner limits do not know, and who
has no row to find) is turned away cheaply."""

from __future__ import annotations

import math
import time
from dataclasses import replace

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import crud
from app.errors import PayloadTooLarge, TooManyRequests, UnprocessableContent
from app.grading import GradingBackend, Submitter
from app.grading.base import SubmissionKept
from app.models import Submission, utcnow
from app.ratelimit import RateLimit
from app.scratch_runs import ScratchRuns
from app.settings import Settings
from app.trust import is_established

# What to suggest when a learner already has a submission being graded: most verdicts take about a second.
IN_FLIGHT_RETRY_AFTER_S = 2


def accept_submission(
    *,
    session: Session,
    backend: GradingBackend,
    settings: Settings,
    address_rate: RateLimit,
    submitter: Submitter,
    problem: str,
    code: str,
    scratch_runs: ScratchRuns | None = None,
) -> Submission:
    check_code_size(code, limit=settings.max_code_bytes)
    established = is_established(session=session, learner_id=submitter.learner_id, rule=settings.established_after)
    submitter = replace(submitter, established=established)
    if established:  # bounded as a learner: the rate and the one run in flight below
        return _store_and_enqueue(
            session=session, backend=backend, settings=settings, submitter=submitter, problem=problem, code=code,
            scripts=_recent_scripts(scratch_runs, submitter.learner_id),
        )
    check_address_rate(address_rate, submitter.address)
    try:
        return _store_and_enqueue(
            session=session, backend=backend, settings=settings, submitter=submitter, problem=problem, code=code,
            scripts=_recent_scripts(scratch_runs, submitter.learner_id),
        )
    except SubmissionKept:
        raise  # stored: it counts against the rate like any accepted submission
    except BaseException:
        address_rate.give_back(submitter.address)  # not accepted: it does not count
        raise


def _recent_scripts(scratch_runs: ScratchRuns | None, learner_id: str) -> int:
    # The learner's "Try it" runs of the last minute count too: neither is a way around the other's limit.
    return len(scratch_runs.recent(learner_id, time.monotonic())) if scratch_runs else 0


def _store_and_enqueue(
    *, session: Session, backend: GradingBackend, settings: Settings, submitter: Submitter, problem: str, code: str,
    scripts: int,
) -> Submission:
    learner_id = submitter.learner_id
    check_rate_limit(session=session, learner_id=learner_id, per_minute=settings.rate_limit_per_minute, scripts=scripts)
    check_nothing_in_flight(session=session, learner_id=learner_id)
    crud.ensure_learner(session=session, learner_id=learner_id)
    try:
        submission = crud.create_submission(session=session, learner_id=learner_id, problem=problem, code=code)
    except IntegrityError:  # another request of this learner got its submission in first
        session.rollback()
        raise _in_flight_error() from None
    try:
        backend.submit(submission.id, submitter=submitter)
    except SubmissionKept:
        raise  # stored and queued: enqueued by the sweeper once the broker is back
    except Exception:
        crud.delete_submission(session=session, submission_id=submission.id)
        raise
    return submission


def check_code_size(code: str, *, limit: int) -> None:
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError as exc:  # JSON's \\ud800 escapes decode to lone surrogates, which UTF-8 cannot hold
        raise UnprocessableContent(_not_unicode_message(code, exc.start)) from None
    if size > limit:
        raise PayloadTooLarge(
            f"Your code is {size:,} bytes; submissions may be at most {limit:,} bytes. "
            "Remove large data or generated text from it and run it again."
        )


def _not_unicode_message(code: str, index: int) -> str:
    line = code.count("\n", 0, index) + 1
    column = index - (code.rfind("\n", 0, index) + 1) + 1
    return (
        f"Your code is not valid Unicode: line {line}, column {column} holds a lone surrogate "
        f"(U+{ord(code[index]):04X}), half of a character that the other half never completes. "
        "Delete that character or retype it, then run your code again."
    )


def check_address_rate(address_rate: RateLimit, address: str) -> None:
    """Count one run of a learner not yet established against the address's rate, or raise TooManyRequests."""
    wait = address_rate.take(address)
    if wait is not None:
        raise TooManyRequests(
            f"Code can be run at most {address_rate.limit} times a minute from one network address, and "
            f"yours has reached that; try again in {wait} seconds. This limit counts only learners new to this "
            "site; it stops counting you once your runs have been graded for a while.",
            retry_after=wait,
        )


def check_rate_limit(*, session: Session, learner_id: str, per_minute: int, scripts: int = 0) -> None:
    """At most `per_minute` submissions and scratch runs (`scripts` of them in the last minute) together."""
    recent = crud.submission_times_since(session=session, learner_id=learner_id, since=crud.one_minute_ago())
    if len(recent) + scripts < per_minute:
        return
    if len(recent) < per_minute:  # the scripts fill the window; theirs is the shorter wait we cannot tell: say 60 s
        raise TooManyRequests(
            f"You can run your code at most {per_minute} times a minute (tests and scripts together); "
            "try again in a minute.",
            retry_after=60,
        )
    # The window frees a slot when the oldest submission inside it turns a minute old.
    oldest = recent[len(recent) - per_minute]
    wait = max(1, math.ceil(60 - (utcnow() - oldest).total_seconds()))
    raise TooManyRequests(
        f"You can run your code at most {per_minute} times a minute; try again in {wait} seconds.",
        retry_after=wait,
    )


def check_nothing_in_flight(*, session: Session, learner_id: str) -> None:
    if crud.in_flight_submission(session=session, learner_id=learner_id) is not None:
        raise _in_flight_error()


def _in_flight_error() -> TooManyRequests:
    return TooManyRequests(
        "Your previous run is still being graded; wait for its verdict, then run again.",
        retry_after=IN_FLIGHT_RETRY_AFTER_S,
    )
