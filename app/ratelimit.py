"""A sliding-window limit kept in memory: at most `limit` events per key in any `window_s` seconds. It guards
the per-address submission rate, which must not cost a database query (the per-learner rate is counted from the
stored submissions instead). Thread-safe: submissions are admitted on the thread pool."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

# Forget idle keys once this many are tracked, so a scan from many addresses cannot grow the table forever.
PRUNE_ABOVE_KEYS = 10_000


class SlidingWindowLimit:
    def __init__(self, *, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> int | None:
        """Count one event for `key`; if that would pass the limit, count nothing and return the whole seconds
        until the window has room again."""
        now = self._clock()
        with self._lock:
            events = self._events.setdefault(key, deque())
            self._expire(events, now)
            if len(events) >= self.limit:
                # The window frees a place when its oldest event turns `window_s` old.
                return max(1, math.ceil(events[0] + self.window_s - now))
            events.append(now)
            if len(self._events) > PRUNE_ABOVE_KEYS:
                self._prune(now)
            return None

    def give_back(self, key: str) -> None:
        """Uncount the latest event of `key` (what it admitted was not accepted after all)."""
        with self._lock:
            events = self._events.get(key)
            if events:
                events.pop()

    def _expire(self, events: deque[float], now: float) -> None:
        while events and events[0] <= now - self.window_s:
            events.popleft()

    def _prune(self, now: float) -> None:
        for key in list(self._events):
            self._expire(self._events[key], now)
            if not self._events[key]:
                del self._events[key]
