"""Live grading events, from whoever grades a submission to whoever streams it to the browser.

A grading publishes `status` (running, with the number of checks), one `check` per finished check, a `call`
when a learner call has been running long (app.grading.call_watch) and when it is over, then `finished` once the
report is stored. `subscribe` registers at once: events published after it returns are
delivered, and the events of a grading still in progress that were published before it are replayed first,
so a reconnecting page sees every check. After `finished` the iteration ends. The in-memory bus serves the
in-process backend; a Redis bus can implement the same protocol for workers on other machines."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Self

EventKind = Literal["status", "check", "call", "verdict", "finished"]


@dataclass(frozen=True)
class GradingEvent:
    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "data": self.data}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> GradingEvent:
        raw = json.loads(text)
        return cls(kind=raw["kind"], data=raw["data"])


class Subscription(Protocol):
    def __aiter__(self) -> Self: ...

    async def __anext__(self) -> GradingEvent: ...

    def take_ready(self) -> list[GradingEvent]:
        """The events already delivered, in order, without waiting (up to and including `finished`): a
        stream writes them in one chunk instead of one write per check."""

    async def aclose(self) -> None: ...


class EventBus(Protocol):
    def publish(self, submission_id: str, event: GradingEvent) -> None:
        """Thread-safe and non-blocking; called from grading threads or worker processes."""

    def subscribe(self, submission_id: str) -> Subscription:
        """Called from the event loop; registered when it returns."""


class InMemoryEventBus:
    """One process: grading threads publish, the event loop's SSE streams subscribe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._logs: dict[str, list[GradingEvent]] = {}
        self._subscribers: defaultdict[str, set[_InMemorySubscription]] = defaultdict(set)

    def publish(self, submission_id: str, event: GradingEvent) -> None:
        with self._lock:
            if event.kind == "finished":
                self._logs.pop(submission_id, None)  # the stored report replaces the log
            elif event.kind == "status" and event.data.get("status") == "running":
                self._logs[submission_id] = [event]  # a (re)started grading starts a fresh log
            else:
                self._logs.setdefault(submission_id, []).append(event)
            subscribers = list(self._subscribers.get(submission_id, ()))
        for subscriber in subscribers:
            subscriber.deliver(event)

    def subscribe(self, submission_id: str) -> _InMemorySubscription:
        subscription = _InMemorySubscription(self, submission_id, asyncio.get_running_loop())
        with self._lock:
            for event in self._logs.get(submission_id, ()):
                subscription.queue.put_nowait(event)
            self._subscribers[submission_id].add(subscription)
        return subscription

    def unsubscribe(self, subscription: _InMemorySubscription) -> None:
        with self._lock:
            subscribers = self._subscribers.get(subscription.submission_id)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[subscription.submission_id]

    def log_size(self) -> int:
        with self._lock:
            return len(self._logs)


class _InMemorySubscription:
    def __init__(self, bus: InMemoryEventBus, submission_id: str, loop: asyncio.AbstractEventLoop) -> None:
        self.bus = bus
        self.submission_id = submission_id
        self.loop = loop
        self.queue: asyncio.Queue[GradingEvent] = asyncio.Queue()
        self.finished = False
        self._inbox: list[GradingEvent] = []  # delivered by grading threads, not yet moved to the loop
        self._inbox_lock = threading.Lock()

    def deliver(self, event: GradingEvent) -> None:
        """From a grading thread. Wakes the loop once per burst of events, not once per event."""
        with self._inbox_lock:
            self._inbox.append(event)
            if len(self._inbox) > 1:
                return  # a wake-up is already on its way and will take this one too
        try:
            self.loop.call_soon_threadsafe(self._move_inbox)
        except RuntimeError:  # the subscriber's loop has closed; nobody is listening any more
            self.bus.unsubscribe(self)

    def _move_inbox(self) -> None:
        with self._inbox_lock:
            events, self._inbox = self._inbox, []
        for event in events:
            self.queue.put_nowait(event)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> GradingEvent:
        if self.finished:
            raise StopAsyncIteration
        return self._seen(await self.queue.get())

    def take_ready(self) -> list[GradingEvent]:
        ready: list[GradingEvent] = []
        while not self.finished and not self.queue.empty():
            ready.append(self._seen(self.queue.get_nowait()))
        return ready

    def _seen(self, event: GradingEvent) -> GradingEvent:
        if event.kind == "finished":
            self.finished = True
            self.bus.unsubscribe(self)
        return event

    async def aclose(self) -> None:
        self.finished = True
        self.bus.unsubscribe(self)
