"""Sliding-window limits: at most `limit` events per key in any `window_s` seconds.

They guard the per-address submission rate and instructors' sign-in attempts, which must not cost a database
query (the per-learner rate is counted from the stored submissions instead). With one process (grading in the
web server), `SlidingWindowLimit` keeps the windows in memory. A site grading on Celery usually runs several web
processes behind one address; each would count apart, and a guesser spreading sign-in attempts over them would get
N times the tries. There the windows live in Redis (`RedisSlidingWindow`), one sorted set per key stamped with
Redis's own clock, so every web process on every machine counts the same events. Both are thread-safe:
submissions are admitted on the thread pool.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

import redis

logger = logging.getLogger(__name__)

# Forget idle keys once this many are tracked, so a scan from many addresses cannot grow the table forever.
PRUNE_ABOVE_KEYS = 10_000


class RateLimit(Protocol):
    limit: int
    window_s: float

    def take(self, key: str) -> int | None:
        """Count one event for `key`; if that would pass the limit, count nothing and return the whole seconds
        until the window has room again."""
        ...

    def give_back(self, key: str) -> None:
        """Uncount the latest event of `key` (what it admitted was not accepted after all)."""
        ...


class SlidingWindowLimit:
    """The windows in this process's memory."""

    def __init__(self, *, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> int | None:
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


# One atomic step per attempt: expire, count, admit or say how long to wait. Redis's clock (TIME) stamps the
# events, so web processes on machines whose clocks disagree still share one window. Returns -1 when admitted,
# else the milliseconds until the oldest event leaves the window.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return -1
"""


class RedisSlidingWindow:
    """The windows in Redis, shared by every process that names the same `prefix` and `name`.

    Keys are hashed: an address or an e-mail address is never written to Redis. When Redis cannot be reached,
    the process falls back to counting in its own memory (and says so in the log) rather than refuse every
    sign-in or let every attempt through; it uses Redis again as soon as Redis answers."""

    def __init__(self, client: redis.Redis, *, prefix: str, name: str, limit: int, window_s: float) -> None:
        self.limit = limit
        self.window_s = window_s
        self._client = client
        self._namespace = f"{prefix}ratelimit:{name}:"
        self._window_ms = max(1, round(window_s * 1000))
        self._take = client.register_script(_TAKE)
        self._fallback = SlidingWindowLimit(limit=limit, window_s=window_s)
        self._warned = threading.Event()

    def redis_key(self, key: str) -> str:
        return self._namespace + hashlib.sha256(key.encode()).hexdigest()[:32]

    def take(self, key: str) -> int | None:
        try:
            waited = int(self._take(keys=[self.redis_key(key)],
                                    args=[self.limit, self._window_ms, secrets.token_hex(8)]))
        except (redis.RedisError, OSError) as exc:
            self._warn(exc)
            return self._fallback.take(key)
        self._warned.clear()
        return None if waited < 0 else max(1, math.ceil(waited / 1000))

    def give_back(self, key: str) -> None:
        try:
            self._client.zpopmax(self.redis_key(key))
        except (redis.RedisError, OSError) as exc:
            self._warn(exc)
            self._fallback.give_back(key)

    def _warn(self, exc: Exception) -> None:
        if not self._warned.is_set():
            self._warned.set()
            logger.warning("rate limit %s: Redis unreachable (%s); counting in this process only until it answers",
                           self._namespace.rstrip(":"), exc)


def make_rate_limit(client: redis.Redis | None, *, prefix: str, name: str, limit: int, window_s: float) -> RateLimit:
    """In Redis when the site has one (grading on Celery, several web processes), else in memory."""
    if client is None:
        return SlidingWindowLimit(limit=limit, window_s=window_s)
    return RedisSlidingWindow(client, prefix=prefix, name=name, limit=limit, window_s=window_s)
