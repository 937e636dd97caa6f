"""The in-process grading queue: fair across clients, so a flood from one client delays another by at most one
grading.

Start-time fair queueing with unit cost (Goyal, Vin and Cheng, SIGCOMM 1996): each queued item gets a start tag,
max(the tag of the item handed out last, the finish tag of its client's previous item), and the smallest tag
goes next (ties in arrival order). A client's items therefore take turns with everyone else's, round-robin,
and a client with nothing queued joins the current round instead of the end of the queue: with every grading
slot busy with a flood, a newcomer waits for one slot to free, not for the flood."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections import Counter
from typing import Generic, TypeVar

T = TypeVar("T")

# Finish tags of clients with nothing queued are kept only while they still matter; prune beyond this many.
PRUNE_SLACK = 64


class FairQueue(Generic[T]):
    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._heap: list[tuple[int, int, str, T]] = []  # (start tag, arrival, client, item)
        self._finish: dict[str, int] = {}  # client -> finish tag of its last item queued
        self._waiting: Counter[str] = Counter()
        self._virtual_time = 0  # the start tag of the item handed out last
        self._arrivals = itertools.count()
        self._unfinished = 0
        self._closed = False

    def put(self, client: str, item: T) -> None:
        with self._condition:
            start = max(self._virtual_time, self._finish.get(client, 0))
            self._finish[client] = start + 1
            heapq.heappush(self._heap, (start, next(self._arrivals), client, item))
            self._waiting[client] += 1
            self._unfinished += 1
            self._condition.notify()

    def get(self) -> T | None:
        """The next item (blocking), or None once the queue is closed; call `task_done` after each item."""
        with self._condition:
            while not self._heap and not self._closed:
                self._condition.wait()
            if self._closed:
                return None
            start, _, client, item = heapq.heappop(self._heap)
            self._virtual_time = start
            self._waiting[client] -= 1
            if not self._waiting[client]:
                del self._waiting[client]
            if len(self._finish) > 2 * len(self._waiting) + PRUNE_SLACK:
                self._prune()
            return item

    def task_done(self) -> None:
        with self._condition:
            self._unfinished -= 1
            if self._unfinished <= 0:
                self._condition.notify_all()

    def join(self) -> None:
        """Block until every item put has been handed out and marked done."""
        with self._condition:
            while self._unfinished > 0 and not self._closed:
                self._condition.wait()

    def close(self) -> None:
        """Wake every `get` with None; what is still queued stays unhanded."""
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    def waiting(self, client: str | None = None) -> int:
        """Items not yet handed out: all of them, or one client's."""
        with self._condition:
            return len(self._heap) if client is None else self._waiting.get(client, 0)

    def _prune(self) -> None:
        # An idle client whose finish tag is not behind anything waiting would, coming back, go before all of it
        # anyway (at most one place sooner than its tag says): forget it, so one-off clients leave no trace.
        bound = self._heap[0][0] if self._heap else self._virtual_time + 1
        self._finish = {
            client: finish
            for client, finish in self._finish.items()
            if finish > bound or client in self._waiting
        }
