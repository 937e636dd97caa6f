"""The in-process grading queue's order: turns by client, a newcomer joins the current round, and it forgets
nothing it was given."""

from __future__ import annotations

import threading

import pytest

from app.grading.fair_queue import FairQueue


def drain(queue: FairQueue[str]) -> list[str]:
    order = []
    while queue.waiting():
        item = queue.get()
        assert item is not None
        order.append(item)
        queue.task_done()
    return order


@pytest.mark.parametrize(
    ("arrivals", "expected"),
    [
        pytest.param([("a", "a1"), ("a", "a2"), ("a", "a3")], ["a1", "a2", "a3"], id="one-client-is-fifo"),
        pytest.param(
            [("a", "a1"), ("a", "a2"), ("a", "a3"), ("b", "b1"), ("b", "b2")],
            ["a1", "b1", "a2", "b2", "a3"],
            id="two-clients-take-turns",
        ),
        pytest.param(
            [("a", "a1"), ("a", "a2"), ("b", "b1"), ("c", "c1"), ("c", "c2")],
            ["a1", "b1", "c1", "a2", "c2"],
            id="three-clients-round-robin",
        ),
    ],
)
def test_clients_take_turns(arrivals: list[tuple[str, str]], expected: list[str]) -> None:
    queue: FairQueue[str] = FairQueue()
    for client, item in arrivals:
        queue.put(client, item)
    assert drain(queue) == expected


def test_a_newcomer_goes_before_the_rest_of_a_flood_already_queued() -> None:
    queue: FairQueue[str] = FairQueue()
    for number in range(1, 6):
        queue.put("flood", f"f{number}")
    assert queue.get() == "f1"  # being graded
    assert queue.get() == "f2"  # being graded in a second slot
    queue.put("newcomer", "n1")
    assert queue.get() == "n1"
    assert [queue.get(), queue.get(), queue.get()] == ["f3", "f4", "f5"]


def test_a_client_served_just_now_waits_its_turn_behind_others() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.put("a", "a1")
    queue.put("b", "b1")
    assert queue.get() == "a1"
    queue.put("a", "a2")  # a comes back at once: b, waiting since before, goes first
    assert [queue.get(), queue.get()] == ["b1", "a2"]


def test_waiting_counts_per_client_and_in_all() -> None:
    queue: FairQueue[str] = FairQueue()
    for client, item in [("a", "a1"), ("a", "a2"), ("b", "b1")]:
        queue.put(client, item)
    assert (queue.waiting(), queue.waiting("a"), queue.waiting("b"), queue.waiting("c")) == (3, 2, 1, 0)
    queue.get()
    assert (queue.waiting(), queue.waiting("a")) == (2, 1)


def test_many_one_off_clients_leave_no_state_behind() -> None:
    queue: FairQueue[str] = FairQueue()
    for number in range(10_000):
        queue.put(f"client-{number}", str(number))
        assert queue.get() == str(number)
        queue.task_done()
    assert len(queue._finish) < 100  # only what can still change an order is remembered


def test_close_wakes_a_waiting_get_and_join() -> None:
    queue: FairQueue[str] = FairQueue()
    got: list[str | None] = []
    getter = threading.Thread(target=lambda: got.append(queue.get()))
    getter.start()
    queue.put("a", "a1")
    getter.join(5)
    assert got == ["a1"]  # handed out, not yet done
    joiner = threading.Thread(target=queue.join)
    joiner.start()
    second = threading.Thread(target=lambda: got.append(queue.get()))
    second.start()
    queue.close()
    second.join(5)
    joiner.join(5)
    assert got == ["a1", None]
    assert not joiner.is_alive() and not second.is_alive()


def test_join_returns_once_every_item_is_done() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.put("a", "a1")
    joiner = threading.Thread(target=queue.join)
    joiner.start()
    assert queue.get() == "a1"
    joiner.join(0.1)
    assert joiner.is_alive()  # handed out but still being graded
    queue.task_done()
    joiner.join(5)
    assert not joiner.is_alive()
