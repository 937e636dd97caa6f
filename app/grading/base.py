"""What the web side needs from a grading backend. The in-process backend (threads + a WorkerPool in this
process) and the Celery backend (workers on other machines) both satisfy `GradingBackend`; routes only ever
call `submit` and `health`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

from app.errors import ServiceUnavailable, TooManyRequests

# Most gradings take about a second: by then one of an address's waiting submissions has started.
ADDRESS_QUEUE_RETRY_AFTER_S = 5


# The most of the queue one address's submissions may hold, established learners' included: a class of 30
# fits in the default queue of 100, and identities farmed on one address (each one graded submission, minutes
# old) cannot fill the queue for every other address.
ADDRESS_SHARE_OF_QUEUE = 0.5


@dataclass(frozen=True)
class Submitter:
    """Who sent a submission, for fairness and the limits per client: the learner, the network address
    (app.addresses) the request came from, and whether the learner is established (app.trust): the per-address
    cap on waiting submissions counts only those who are not."""

    learner_id: str
    address: str
    established: bool = False


def address_share(*, queue_limit: int, per_address: int | None) -> int:
    """How many waiting submissions one address may hold in all (never fewer than its fresh learners may)."""
    return max(per_address or 1, int(queue_limit * ADDRESS_SHARE_OF_QUEUE))


class QueueFull(ServiceUnavailable):
    """Too many submissions are waiting; the submission was not accepted (503 + Retry-After)."""


class BackendUnavailable(ServiceUnavailable):
    """Grading cannot run now (no sandbox, broker down); the submission was not accepted (503)."""


class SubmissionKept(BackendUnavailable):
    """The grading queue cannot be reached now (broker down), but the stored submission stays `queued` and is
    enqueued when the queue is back (503; the learner need not submit again)."""


class AddressQueueFull(TooManyRequests):
    """Too many submissions from learners not yet established (app.trust) on one network address are waiting;
    the submission was not accepted (429)."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"{limit} submissions from your network address are already waiting to be graded; try again in "
            f"{ADDRESS_QUEUE_RETRY_AFTER_S} seconds, when one of them has started. This limit counts only "
            "learners new to this site; it stops counting you once your runs have been graded for a while.",
            retry_after=ADDRESS_QUEUE_RETRY_AFTER_S,
        )


class AddressShareFull(TooManyRequests):
    """One address's submissions hold its whole share of the queue, established learners' included (429)."""

    def __init__(self, share: int) -> None:
        super().__init__(
            f"{share} submissions from your network address are waiting to be graded, as many as one address may "
            f"have waiting; try again in {ADDRESS_QUEUE_RETRY_AFTER_S} seconds, when one of them has started.",
            retry_after=ADDRESS_QUEUE_RETRY_AFTER_S,
        )


@dataclass(frozen=True)
class BackendHealth:
    backend: str
    available: bool
    sandbox: str | None  # "bubblewrap" | "none" | None when no sandbox could be made
    queue_depth: int
    queue_limit: int | None
    reason: str | None = None
    # Problems whose first-grading work this process has done ahead (grader.prepare); None where the grading
    # happens in other processes (Celery) or preparing is switched off.
    problems_prepared: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class GradingBackend(Protocol):
    def start(self) -> None:
        """Get ready to grade and re-enqueue submissions a previous process left queued or running."""

    def stop(self) -> None:
        """Finish or hand back work in progress; nothing submitted may be lost (it stays queued in the DB)."""

    def submit(self, submission_id: str, *, submitter: Submitter) -> None:
        """Enqueue a stored submission. Raises QueueFull, AddressQueueFull, AddressShareFull or BackendUnavailable;
        never grades inline."""

    def stop_grading(self, submission_id: str) -> None:
        """The learner pressed Stop: end the grading of `submission_id` at once wherever it runs (or, when it has
        not started yet, as soon as it starts). Raises BackendUnavailable when the signal cannot be sent."""

    def health(self) -> BackendHealth:
        """Cheap: called for every page (the unsandboxed banner) and by /healthz; cache remote state."""
        ...


class Pool(Protocol):
    """The part of grader.pool.WorkerPool the backends use."""

    @property
    def sandbox(self) -> str: ...

    def start(self) -> object: ...

    def close(self) -> None: ...
