"""The per-address cap on waiting submissions when grading runs on Celery. The broker's queue is one FIFO list
that the web side cannot reorder or count per client, so each web process remembers which submissions it sent
from which address and asks the database which of them still wait (`queued`); the query runs only for an
address that has reached the cap, so an ordinary submission costs no extra round trip.

With several web processes, each counts its own: an address sending through k processes may have k times the
cap waiting."""

from __future__ import annotations

import threading

from sqlalchemy import select

from app.db import SessionFactory
from app.grading.base import AddressQueueFull
from app.models import Submission

# Addresses remembered at most; beyond it the longest-known are forgotten (each holds at most `limit` ids).
MAX_ADDRESSES = 10_000


class WaitingByAddress:
    def __init__(self, *, session_factory: SessionFactory, limit: int) -> None:
        self._session_factory = session_factory
        self.limit = limit
        self._lock = threading.Lock()
        self._sent: dict[str, list[str]] = {}

    def admit(self, address: str, submission_id: str) -> None:
        """Count `submission_id` as waiting for `address`, or raise AddressQueueFull."""
        with self._lock:
            sent = list(self._sent.get(address, ()))
        if len(sent) >= self.limit:
            still_waiting = self._still_queued(sent)
            with self._lock:
                current = self._sent.get(address, [])
                self._sent[address] = [i for i in current if i in still_waiting or i not in sent]
                if len(self._sent[address]) >= self.limit:
                    raise AddressQueueFull(self.limit)
        with self._lock:
            self._sent.setdefault(address, []).append(submission_id)
            if len(self._sent) > MAX_ADDRESSES:
                del self._sent[next(iter(self._sent))]

    def _still_queued(self, submission_ids: list[str]) -> set[str]:
        with self._session_factory() as session:
            return set(
                session.scalars(
                    select(Submission.id).where(Submission.id.in_(submission_ids), Submission.status == "queued")
                )
            )
