"""Scratch runs ("Try it") on the web side: admit one (sizes, the rate limits it shares with submissions, one
at a time per learner), run it on the grading backend's warm sandboxes (this process's own, or a Celery worker's
through app.grading.remote_scratch), and say why when it cannot run.

Nothing is stored: a scratch run is no attempt and has no verdict. It counts against the learner's runs per
minute together with their submissions, and against the network address's limit through the very limiter
submissions use (for learners not yet established, app.trust), so "Try it" is no way around either."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, cast

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from app import crud
from app.errors import ServiceUnavailable, TooManyRequests
from app.intake import check_address_rate, check_code_size
from app.scratch_runs import WINDOW_S, ScratchRuns
from app.state import AppState
from app.trust import is_established
from grader import Activity, Problem, ScratchResult, WorkerPool, run_script

if TYPE_CHECKING:  # only a Celery site has one, and only it needs Celery imported
    from app.grading.remote_scratch import RemoteScratch

# Grading is unavailable here (no sandbox could be made): retrying will not help soon.
NO_SANDBOX_RETRY_AFTER_S = 60


class ScratchRequest(BaseModel):
    code: str = Field(description="The learner's functions, as in the editor.")
    script: str = Field(description="Their script: runs after the functions, in the same module.")


def check_learner_rate(*, session: Session, runs: ScratchRuns, learner_id: str, per_minute: int) -> None:
    """Submissions and scratch runs of the last minute together stay within the learner's limit."""
    now = time.monotonic()
    scratch = runs.recent(learner_id, now)
    submitted = crud.submission_times_since(session=session, learner_id=learner_id, since=crud.one_minute_ago())
    if len(scratch) + len(submitted) < per_minute:
        return
    wait = max(1, math.ceil(scratch[0] + WINDOW_S - now)) if scratch else 60
    raise TooManyRequests(
        f"You can run your code at most {per_minute} times a minute (tests and scripts together); "
        f"try again in {wait} seconds.",
        retry_after=wait,
    )


def run_scratch(
    *, state: AppState, session: Session, learner_id: str, address: str, problem: Problem, body: ScratchRequest
) -> ScratchResult:
    settings = state.settings
    check_code_size(body.code + body.script, limit=settings.max_code_bytes)
    pool = getattr(state.backend, "pool", None)  # grading in this process: its own warm sandboxes
    remote: RemoteScratch | None = getattr(state.backend, "scratch", None)  # grading on Celery: the workers'
    if pool is None and remote is None:
        raise ServiceUnavailable(
            "Try it runs on this server's sandboxes, and none is running (grading is unavailable); use Run tests "
            "later.",
            retry_after=NO_SANDBOX_RETRY_AFTER_S,
        )
    runs = state.scratch_runs
    check_learner_rate(session=session, runs=runs, learner_id=learner_id, per_minute=settings.rate_limit_per_minute)
    if not is_established(session=session, learner_id=learner_id, rule=settings.established_after):
        check_address_rate(state.address_rate, address)  # as for submissions: a class is bounded per learner
    session.close()  # nothing more to read: the run may take seconds, and must not hold a pooled connection
    with runs.running(learner_id, time.monotonic()):
        if pool is not None:
            activity: Activity = state.backend.activity  # type: ignore[attr-defined]  # beside `pool`, always
            with activity.running():  # the catalogue's preparation waits for it, as for a grading
                return run_script(problem, body.code, body.script, pool=cast(WorkerPool, pool))
        assert remote is not None
        return remote.run(problem, body.code, body.script)
