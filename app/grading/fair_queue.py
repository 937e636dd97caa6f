"""The in-process grading queue: fair across network addresses, and across the learners of one address, so a
flood from one client delays another by at most one grading, and a learner in a class behind one NAT address
waits for the other learners' runs in turn, not for whoever pressed Run first.

Start-time fair queueing with unit cost (Goyal, Vin and Cheng, SIGCOMM 1996), at two levels. Each queued item
gets a start tag for its group (the address), max(the tag of the group's item handed out last, the finish tag
of the group's previous item), and the group with the smallest tag goes next (ties in arrival order). Groups
therefore take turns, round-robin, and a group with nothing queued joins the current round instead of the end
of the queue: with every grading slot busy with a flood, a newcomer waits for one slot to free, not for the
flood. Within the group whose turn it is, the same rule picks the member (the learner): the learners behind one
address take turns among themselves."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

# Finish tags of clients with nothing queued are kept only while they still matter; prune beyond this many.
PRUNE_SLACK = 64


class StartTags:
    """One level of start-time fair queueing: the tags of its clients, and which tag was served last."""

    def __init__(self) -> None:
        self.finish: dict[str, int] = {}  # client -> finish tag of its last item queued
        self.virtual_time = 0  # the start tag of the item handed out last

    def start(self, client: str) -> int:
        """The start tag of `client`'s next item (and its finish tag moves one on)."""
        start = max(self.virtual_time, self.finish.get(client, 0))
        self.finish[client] = start + 1
        return start

    def served(self, start: int) -> None:
        self.virtual_time = start

    def prune(self, *, waiting: Counter[str], smallest_waiting: int | None) -> None:
        """Forget idle clients whose tag no longer orders anything, once there are many of them."""
        if len(self.finish) <= 2 * len(waiting) + PRUNE_SLACK:
            return
        # An idle client whose finish tag is at most one round behind the first item waiting would, coming back
        # forgotten, join that round instead of the next: at most one place sooner than its tag says. Forget it,
        # so one-off clients leave no trace, also while the queue never empties and every tag stays the same (a
        # busy lab whose learners each have one run waiting).
        bound = smallest_waiting if smallest_waiting is not None else self.virtual_time
        self.finish = {client: finish for client, finish in self.finish.items()
                       if finish > bound + 1 or client in waiting}


@dataclass
class _Group(Generic[T]):
    """One address's waiting items, in the order its members take turns."""

    tags: StartTags = field(default_factory=StartTags)
    heap: list[tuple[int, int, str, T]] = field(default_factory=list)  # (start tag, arrival, member, item)
    waiting: Counter[str] = field(default_factory=Counter)  # member -> items waiting


class FairQueue(Generic[T]):
    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._tags = StartTags()  # across groups
        self._heap: list[tuple[int, int, str]] = []  # (start tag, arrival, group): one per item waiting
        self._groups: dict[str, _Group[T]] = {}  # groups with items waiting
        self._waiting: Counter[str] = Counter()  # group -> items waiting
        self._arrivals = itertools.count()
        self._unfinished = 0
        self._closed = False

    def put(self, group: str, item: T, *, member: str | None = None) -> None:
        """Queue `item` for `group` (a network address) on behalf of `member` (a learner; default: the group)."""
        with self._condition:
            arrival = next(self._arrivals)
            heapq.heappush(self._heap, (self._tags.start(group), arrival, group))
            state = self._groups.setdefault(group, _Group())
            who = group if member is None else member
            heapq.heappush(state.heap, (state.tags.start(who), arrival, who, item))
            state.waiting[who] += 1
            self._waiting[group] += 1
            self._unfinished += 1
            self._condition.notify()

    def get(self) -> T | None:
        """The next item (blocking), or None once the queue is closed; call `task_done` after each item."""
        with self._condition:
            while not self._heap and not self._closed:
                self._condition.wait()
            if self._closed:
                return None
            start, _, group = heapq.heappop(self._heap)
            self._tags.served(start)
            item = self._take_from(group)
            self._waiting[group] -= 1
            if not self._waiting[group]:
                del self._waiting[group]
            self._tags.prune(waiting=self._waiting, smallest_waiting=self._heap[0][0] if self._heap else None)
            return item

    def _take_from(self, group: str) -> T:
        state = self._groups[group]
        start, _, member, item = heapq.heappop(state.heap)
        state.tags.served(start)
        state.waiting[member] -= 1
        if not state.waiting[member]:
            del state.waiting[member]
        if state.heap:
            state.tags.prune(waiting=state.waiting, smallest_waiting=state.heap[0][0])
        else:
            # Nothing of the group waits: its members' tags order nothing any more, and a member coming back
            # joins a fresh round of its group.
            del self._groups[group]
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

    def waiting(self, group: str | None = None, *, where: Callable[[T], bool] | None = None) -> int:
        """Items not yet handed out: all of them, or one group's; only those `where` holds for, if given (it
        looks at each of the group's items: for a group's few)."""
        with self._condition:
            if group is None:
                if where is None:
                    return len(self._heap)
                return sum(1 for state in self._groups.values() for *_, item in state.heap if where(item))
            if where is None:
                return self._waiting.get(group, 0)
            state = self._groups.get(group)
            return sum(1 for *_, item in state.heap if where(item)) if state is not None else 0
