"""The learner's Stop button, on the grading side: which gradings this process runs, and how a stop reaches one.

`StopRegistry` maps a submission being graded here to its grader.CancelToken. A stop for a submission that is not
(yet) graded here is remembered for a while, so a grading that starts just after it (the queue handed it out as
the learner pressed Stop) is stopped at once rather than run in full. The in-process backend calls `stop`
directly; a Celery worker calls it from `RedisStops`, which listens for the stops the web side publishes."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Protocol

import redis

from grader import CancelToken

logger = logging.getLogger(__name__)

# A stop that arrived before its grading started still applies when the grading starts within this long.
PENDING_STOP_S = 120.0
LISTENER_RECONNECT_S = 1.0


class StopWatcher(Protocol):
    """What a grading asks for its CancelToken (StopRegistry in one process, RedisStops on a Celery worker)."""

    def watch(self, submission_id: str) -> AbstractContextManager[CancelToken]: ...


class StopRegistry:
    """Thread-safe: gradings `watch` from grading threads, `stop` comes from a request or a listener."""

    def __init__(self, *, pending_s: float = PENDING_STOP_S) -> None:
        self._lock = threading.Lock()
        self._tokens: dict[str, CancelToken] = {}
        self._pending: dict[str, float] = {}  # submission id -> when its stop arrived (monotonic)
        self._pending_s = pending_s

    @contextlib.contextmanager
    def watch(self, submission_id: str) -> Iterator[CancelToken]:
        """The token of one grading of `submission_id`, already cancelled if a stop for it is pending."""
        token = CancelToken()
        with self._lock:
            self._forget_old_stops()
            self._tokens[submission_id] = token
            if self._pending.pop(submission_id, None) is not None:
                token.cancel()
        try:
            yield token
        finally:
            with self._lock:
                if self._tokens.get(submission_id) is token:
                    del self._tokens[submission_id]
            token.close()

    def stop(self, submission_id: str) -> bool:
        """Stop the grading of `submission_id`: True when one was running here; otherwise remember the stop
        for the next grading of it that starts here."""
        with self._lock:
            token = self._tokens.get(submission_id)
            if token is None:
                self._forget_old_stops()
                self._pending[submission_id] = time.monotonic()
                return False
        token.cancel()
        return True

    def running(self) -> list[str]:
        with self._lock:
            return list(self._tokens)

    def _forget_old_stops(self) -> None:
        cutoff = time.monotonic() - self._pending_s
        for submission_id in [key for key, at in self._pending.items() if at < cutoff]:
            del self._pending[submission_id]


def stop_channel(prefix: str) -> str:
    return f"{prefix}stops"


def stop_key(prefix: str, submission_id: str) -> str:
    return f"{prefix}stop:{submission_id}"


def publish_stop(client: redis.Redis, *, prefix: str, submission_id: str) -> None:
    """The web side of a stop under Celery: a key (for a grading that starts after it) and a message (for the
    one running now, wherever it runs). Raises redis.RedisError when Redis cannot be reached."""
    client.set(stop_key(prefix, submission_id), "1", ex=int(PENDING_STOP_S))
    client.publish(stop_channel(prefix), submission_id)


class RedisStops:
    """A Celery grading process's ear for stops: a listener thread on the stop channel feeds a StopRegistry,
    and `watch` first looks for a stop that arrived before the grading began."""

    def __init__(self, client: redis.Redis, *, prefix: str, registry: StopRegistry | None = None) -> None:
        self._redis = client
        self._prefix = prefix
        self.registry = registry or StopRegistry()
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._listen, name="paperlab-stops-listener", daemon=True)

    def start(self, *, wait_s: float = 5.0) -> None:
        self._thread.start()
        self._ready.wait(wait_s)  # subscribed: a stop published from now on is heard

    def close(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)

    @contextlib.contextmanager
    def watch(self, submission_id: str) -> Iterator[CancelToken]:
        with self.registry.watch(submission_id) as token:
            try:
                if self._redis.exists(stop_key(self._prefix, submission_id)):
                    token.cancel()
            except redis.RedisError as exc:  # the channel still delivers a stop that comes later
                logger.warning("could not look for a stop of submission %s: %s", submission_id, exc)
            yield token

    def _listen(self) -> None:
        while not self._stopping.is_set():
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call, unused-ignore]  # untyped before redis-py 8.2
            try:
                pubsub.subscribe(stop_channel(self._prefix))
                self._ready.set()
                while not self._stopping.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is None or message.get("type") != "message":
                        continue
                    data = message["data"]
                    submission_id = data.decode() if isinstance(data, bytes) else str(data)
                    if submission_id in self.registry.running():
                        self.registry.stop(submission_id)  # a stop for another process's grading is not ours
            except (redis.RedisError, OSError) as exc:
                logger.warning("stop listener lost Redis (%s); reconnecting", exc)
                self._stopping.wait(LISTENER_RECONNECT_S)
            finally:
                with contextlib.suppress(redis.RedisError, OSError):
                    pubsub.close()
