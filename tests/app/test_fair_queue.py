"""The in-process grading queue's order: turns by client (a network address), turns by learner within an
address, a newcomer joins the current round, and it forgets nothing it was given."""

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


@pytest.mark.parametrize(
    ("arrivals", "expected"),
    [
        pytest.param(
            [("lab", "ann", "ann1"), ("lab", "ann", "ann2"), ("lab", "ann", "ann3"), ("lab", "bob", "bob1"),
             ("lab", "cyd", "cyd1")],
            ["ann1", "bob1", "cyd1", "ann2", "ann3"],
            id="learners-of-one-address-take-turns",
        ),
        pytest.param(
            [("lab", "ann", "ann1"), ("lab", "ann", "ann2"), ("lab", "bob", "bob1"), ("home", "dee", "dee1"),
             ("home", "dee", "dee2")],
            ["ann1", "dee1", "bob1", "dee2", "ann2"],
            id="addresses-take-turns-then-learners-within",
        ),
        pytest.param(
            [("lab", "ann", "ann1"), ("lab", "bob", "bob1"), ("lab", "cyd", "cyd1"), ("home", "dee", "dee1")],
            ["ann1", "dee1", "bob1", "cyd1"],
            id="a-class-is-one-address-among-others",
        ),
    ],
)
def test_learners_within_an_address_take_turns(arrivals: list[tuple[str, str, str]], expected: list[str]) -> None:
    queue: FairQueue[str] = FairQueue()
    for address, learner, item in arrivals:
        queue.put(address, item, member=learner)
    assert drain(queue) == expected


def test_a_learner_who_comes_back_waits_behind_the_rest_of_the_class() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.put("lab", "ann1", member="ann")
    queue.put("lab", "bob1", member="bob")
    assert queue.get() == "ann1"
    queue.put("lab", "ann2", member="ann")
    queue.put("lab", "cyd1", member="cyd")
    assert [queue.get(), queue.get(), queue.get()] == ["bob1", "cyd1", "ann2"]


def test_waiting_counts_the_items_a_predicate_picks_out() -> None:
    queue: FairQueue[str] = FairQueue()
    for address, learner, item in [("lab", "ann", "fresh-1"), ("lab", "bob", "old-1"), ("lab", "cyd", "fresh-2"),
                                   ("home", "dee", "fresh-3")]:
        queue.put(address, item, member=learner)
    fresh = lambda item: item.startswith("fresh")  # noqa: E731
    assert (queue.waiting("lab", where=fresh), queue.waiting("home", where=fresh), queue.waiting("none", where=fresh),
            queue.waiting(where=fresh)) == (2, 1, 0, 3)
    assert queue.get() == "fresh-1"
    assert queue.waiting("lab", where=fresh) == 1


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
    assert len(queue._tags.finish) < 100  # only what can still change an order is remembered


def test_many_one_off_clients_of_a_queue_that_never_empties_leave_no_state_behind() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.put("always-there", "first")
    for number in range(10_000):
        queue.put(f"client-{number}", str(number))
        assert queue.get() in ("first", str(number - 1))
    assert len(queue._tags.finish) < 100


def test_many_one_off_learners_behind_a_busy_address_leave_no_state_behind() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.put("lab", "first", member="always-there")
    for number in range(10_000):
        queue.put("lab", str(number), member=f"learner-{number}")
        assert queue.get() in ("first", str(number - 1))
    assert len(queue._groups["lab"].tags.finish) < 100


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
