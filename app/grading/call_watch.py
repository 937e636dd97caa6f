"""Which learner function a grading waits on, for the page: "momentum_update has been running for 6 s".

The judge tells a grading's `CallWatch` each time it sends the worker a request (grader.CallStarted, from the
trusted side) and when none is waiting. Most calls take milliseconds, so an event per call would flood the stream;
the watch publishes a `call` event only for a call still running after `slow_after_s`, and a `call` event with
no function once that call is over. One small thread per grading does the waiting.

The grading thread wakes that thread only when the page must change at once (an announced call is over, the grading
ends): a MoCo grading sends its worker about fifty requests, and a wake-up per request cost the grading host more
than the calls' bookkeeping (every wake-up is a futex call and a hand-over of the interpreter lock). Otherwise the
watcher wakes on its own, when the call it saw would become slow, or every `slow_after_s` while it saw none; a call
that starts while it sleeps is then named on time, since it cannot be slow before the watcher next looks."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from grader import CallStarted

# The page names a call once it has run this long; most calls are over in milliseconds.
SLOW_CALL_S = 2.0

Publish = Callable[[dict[str, Any]], None]


class CallWatch:
    def __init__(self, publish: Publish, *, slow_after_s: float = SLOW_CALL_S) -> None:
        self._publish = publish
        self._slow_after_s = slow_after_s
        self._changed = threading.Condition()
        self._current: CallStarted | None = None
        self._announced: CallStarted | None = None  # the call the page names; written by the watcher, under the lock
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="paperlab-call-watch", daemon=True)

    def __enter__(self) -> CallWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._changed:
            self._closed = True
            self._current = None
            self._changed.notify()
        self._thread.join(timeout=5)

    def on_call(self, call: CallStarted | None) -> None:
        """From the grading thread (grader.grade's on_call): cheap, never blocks on publishing."""
        with self._changed:
            self._current = call
            if self._announced is not None:  # the page names a call that is over now: the watcher must say so
                self._changed.notify()

    def _run(self) -> None:
        while True:
            with self._changed:
                while True:
                    current, closed, announced = self._current, self._closed, self._announced
                    if announced is not None and current is not announced:
                        break  # the announced call is over: say so
                    if closed:
                        return
                    if current is not None and announced is None:
                        due = current.started_at + self._slow_after_s - time.time()
                        if due <= 0:
                            break  # running long enough to name it
                        self._changed.wait(due)
                    elif announced is None:
                        # no call seen: one that starts now is not slow before this wait ends
                        self._changed.wait(max(self._slow_after_s, 0.01))
                    else:
                        self._changed.wait()  # the announced call runs on: on_call wakes us when it ends
                if announced is not None and current is not announced:
                    self._announced = None
                else:
                    assert current is not None
                    self._announced = current
            if announced is not None and current is not announced:
                self._publish({"function": None})
            else:
                assert current is not None
                self._publish({"function": current.function, "started_at": current.started_at})
