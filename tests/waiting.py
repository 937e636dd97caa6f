"""Waiting in tests for something another thread or process makes true."""

from __future__ import annotations

import time
from collections.abc import Callable


def eventually(condition: Callable[[], bool], what: str, *, within_s: float, poll_s: float = 0.01) -> float:
    """Seconds until `condition()` held; fails the test, naming `what`, if it did not within `within_s`."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > within_s:
            raise AssertionError(f"not within {within_s} s: {what}")
        time.sleep(poll_s)
    return time.monotonic() - start
