"""The event streams open in this process: at most a few per learner and per network address (counting learners
not yet established, app.trust), and all of them ended at shutdown. A stream costs a socket and a subscription,
never a database connection (see app.routes.events), but thousands of them still hold memory and keep a
graceful shutdown waiting, since a stream of a waiting submission only sends heartbeats and never ends by itself.

Counts are per web process; one learner or address spread over several processes gets the caps in each."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

from app.errors import ServiceUnavailable, TooManyRequests

# A stream usually ends with its verdict within seconds; then a place is free again.
STREAM_RETRY_AFTER_S = 5
RESTART_RETRY_AFTER_S = 2


class StreamSlot:
    """One open stream's place. `ended` is set when the server shuts down; `release` is idempotent, so both
    the response and its body iterator may call it."""

    def __init__(self, streams: OpenStreams, *, learner_id: str, address: str | None) -> None:
        self._streams = streams
        self.learner_id = learner_id
        self.address = address  # None: an established learner's stream, not counted against the address
        self._loop = asyncio.get_running_loop()
        self.ended = asyncio.Event()
        self._released = False

    def end(self) -> None:
        """From any thread."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self.ended.set()
            return
        try:
            self._loop.call_soon_threadsafe(self.ended.set)
        except RuntimeError:  # that loop has closed: its stream is gone already
            pass

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._streams.forget(self)


class OpenStreams:
    def __init__(self, *, per_learner: int, per_address: int) -> None:
        self.per_learner = per_learner
        self.per_address = per_address
        self._lock = threading.Lock()
        self._slots: set[StreamSlot] = set()
        self._by_learner: Counter[str] = Counter()
        self._by_address: Counter[str] = Counter()
        self._closing = False

    def open(self, *, learner_id: str, address: str, established: bool = False) -> StreamSlot:
        """A place for one more stream (from the event loop), or TooManyRequests saying which cap is full. An
        established learner's streams (app.trust) count against the learner only, as their submissions do."""
        with self._lock:
            if self._closing:
                raise ServiceUnavailable(
                    "The server is restarting; the result will be there when it is back.",
                    retry_after=RESTART_RETRY_AFTER_S,
                )
            if self._by_learner[learner_id] >= self.per_learner:
                raise TooManyRequests(
                    f"You have {self.per_learner} live result streams open already (other tabs of this "
                    "site?); close one, or wait for a verdict to arrive.",
                    retry_after=STREAM_RETRY_AFTER_S,
                )
            counted = None if established else address
            if counted is not None and self._by_address[counted] >= self.per_address:
                raise TooManyRequests(
                    f"{self.per_address} live result streams are open from your network address already; "
                    "try again when one of them has its verdict.",
                    retry_after=STREAM_RETRY_AFTER_S,
                )
            slot = StreamSlot(self, learner_id=learner_id, address=counted)
            self._slots.add(slot)
            self._by_learner[learner_id] += 1
            if counted is not None:
                self._by_address[counted] += 1
            return slot

    def close_all(self) -> None:
        """End every open stream and refuse new ones (shutdown). From any thread."""
        with self._lock:
            self._closing = True
            slots = list(self._slots)
        for slot in slots:
            slot.end()

    def count(self) -> int:
        with self._lock:
            return len(self._slots)

    def forget(self, slot: StreamSlot) -> None:
        with self._lock:
            self._slots.discard(slot)
            for counter, key in ((self._by_learner, slot.learner_id), (self._by_address, slot.address)):
                if key is None:
                    continue
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]
