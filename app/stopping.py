"""The Stop button: ending a learner's own grading at once (POST /api/submissions/{id}/stop).

A submission still waiting in the queue gets its "stopped by you" verdict stored here and now (no check ran). One
being graded is signalled through the backend (a CancelToken in this process, a Redis message to a Celery worker);
its grader then stores the report, whose finished checks keep their verdicts. The backend is told in both cases,
first: a grader that takes the submission from the queue in the meantime stops it as it starts."""

from __future__ import annotations

from app import crud
from app.errors import Conflict
from app.grading.runner import stop_waiting
from app.models import FINISHED
from app.state import AppState


def stop_submission(state: AppState, *, submission_id: str, learner_id: str) -> None:
    """Blocking (database, maybe Redis): run it in the thread pool. NotFound unless the learner owns the
    submission; Conflict once it is graded; BackendUnavailable when the signal cannot be sent."""
    with state.session_factory() as session:
        submission = crud.get_submission(session=session, submission_id=submission_id, learner_id=learner_id)
        status, slug = submission.status, submission.problem
    if status in FINISHED:
        raise Conflict(f"Submission '{submission_id}' is already graded; there is nothing to stop.")
    state.backend.stop_grading(submission_id)
    if status == "queued":
        entry = state.catalog.entries.get(slug)
        stop_waiting(
            session_factory=state.session_factory,
            submission_id=submission_id,
            problem=entry.problem if entry is not None else None,
            bus=state.bus,
            sandbox=state.backend.health().sandbox,
        )
