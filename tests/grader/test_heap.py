"""grader.heap.settle: what a judge process keeps for its life is out of the cyclic collector's walks."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from grader.heap import settle


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # the rest of the test session collects as it did before


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector can free it


def test_what_lives_at_settle_is_never_walked_again(unfrozen: None) -> None:
    kept = Node()
    settle()
    assert gc.get_freeze_count() > 0
    assert not any(item is kept for item in gc.get_objects())


def test_garbage_at_settle_is_freed_not_frozen(unfrozen: None) -> None:
    garbage = Node()
    gone = weakref.ref(garbage)
    del garbage  # unreachable now, kept only by its own cycle
    gc.disable()  # no collection but settle's own
    try:
        assert gone() is not None
        settle()
    finally:
        gc.enable()
    assert gone() is None


def test_what_is_made_after_settle_is_still_collected(unfrozen: None) -> None:
    settle()
    Node()
    assert gc.collect() >= 1
