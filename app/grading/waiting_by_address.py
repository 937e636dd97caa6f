"""The per-address caps on waiting submissions when grading runs on Celery. The broker's queue is one FIFO list
that the web side cannot reorder or count per client, so each web process remembers which submissions it sent
from which address, and whether their learner was established (app.trust), and asks the database which of them
still wait (`queued`). Two caps, as in the in-process backend: `limit` waiting from learners not yet
established, and `share` waiting in all. The query runs only for an address that has reached a cap, so an
ordinary submission costs no extra round trip.

With several web processes, each counts its own: an address sending through k processes may have k times the
caps waiting."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy import select

from app.db import SessionFactory
from app.grading.base import AddressQueueFull, AddressShareFull
from app.models import Submission

# Addresses remembered at most; beyond it the longest-known are forgotten (each holds at most `share` ids).
MAX_ADDRESSES = 10_000


@dataclass(frozen=True)
class _Sent:
    submission_id: str
    fresh: bool


class WaitingByAddress:
    def __init__(self, *, session_factory: SessionFactory, limit: int, share: int | None = None) -> None:
        self._session_factory = session_factory
        self.limit = limit
        self.share = max(limit, share if share is not None else limit)
        self._lock = threading.Lock()
        self._sent: dict[str, list[_Sent]] = {}

    def admit(self, address: str, submission_id: str, *, fresh: bool = True) -> None:
        """Count `submission_id` as waiting for `address`, or raise AddressQueueFull (a learner not yet
        established, `fresh`, and `limit` such waiting) or AddressShareFull (`share` waiting in all)."""
        with self._lock:
            sent = list(self._sent.get(address, ()))
        if self._over(sent, fresh=fresh):
            still_waiting = self._still_queued([entry.submission_id for entry in sent])
            with self._lock:
                current = self._sent.get(address, [])
                self._sent[address] = [entry for entry in current
                                       if entry.submission_id in still_waiting or entry not in sent]
                if fresh and sum(entry.fresh for entry in self._sent[address]) >= self.limit:
                    raise AddressQueueFull(self.limit)
                if len(self._sent[address]) >= self.share:
                    raise AddressShareFull(self.share)
        with self._lock:
            self._sent.setdefault(address, []).append(_Sent(submission_id, fresh))
            if len(self._sent) > MAX_ADDRESSES:
                del self._sent[next(iter(self._sent))]

    def _over(self, sent: list[_Sent], *, fresh: bool) -> bool:
        return len(sent) >= self.share or (fresh and sum(entry.fresh for entry in sent) >= self.limit)

    def _still_queued(self, submission_ids: list[str]) -> set[str]:
        with self._session_factory() as session:
            return set(
                session.scalars(
                    select(Submission.id).where(Submission.id.in_(submission_ids), Submission.status == "queued")
                )
            )
