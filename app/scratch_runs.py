"""When each learner's recent scratch runs ("Try it") started, and whose is running now: kept in memory by the web
process, because a scratch run is never stored. Submissions count these against the learner's runs per minute
(app/intake.py), and scratch runs count submissions (app/scratch.py)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from app.errors import TooManyRequests

WINDOW_S = 60.0
# How long a learner waits when their previous script is still running: most finish within a second.
BUSY_RETRY_AFTER_S = 2


class ScratchRuns:
    """Per-learner bookkeeping in memory: when their recent scratch runs started, and which one is running."""

    def __init__(self) -> None:
        self._started: dict[str, deque[float]] = {}
        self._running: set[str] = set()
        self._lock = threading.Lock()

    def recent(self, learner_id: str, now: float) -> list[float]:
        with self._lock:
            times = self._started.setdefault(learner_id, deque())
            while times and times[0] <= now - WINDOW_S:
                times.popleft()
            return list(times)

    @contextmanager
    def running(self, learner_id: str, now: float) -> Iterator[None]:
        with self._lock:
            if learner_id in self._running:
                raise TooManyRequests(
                    "Your previous script is still running; wait for its output, then run again.",
                    retry_after=BUSY_RETRY_AFTER_S,
                )
            self._running.add(learner_id)
            self._started.setdefault(learner_id, deque()).append(now)
        try:
            yield
        finally:
            with self._lock:
                self._running.discard(learner_id)
