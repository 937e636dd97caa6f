"""What limits per network address count by, and the in-memory sliding window that counts them."""

from __future__ import annotations

import pytest

from app.addresses import address_key
from app.ratelimit import SlidingWindowLimit


@pytest.mark.parametrize(
    ("host", "key"),
    [
        pytest.param("203.0.113.7", "203.0.113.7", id="ipv4-as-is"),
        pytest.param("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64", id="ipv6-by-its-64"),
        pytest.param("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64", id="same-64-same-key"),
        pytest.param("::ffff:203.0.113.7", "203.0.113.7", id="ipv4-mapped-is-ipv4"),
        pytest.param("testclient", "testclient", id="not-an-ip-as-is"),
        pytest.param(None, "unknown", id="no-peer"),
    ],
)
def test_address_key(host: str | None, key: str) -> None:
    assert address_key(host) == key


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_window_refuses_beyond_the_limit_and_says_how_long_to_wait() -> None:
    clock = Clock()
    limit = SlidingWindowLimit(limit=2, window_s=60, clock=clock)
    assert limit.take("a") is None
    clock.now += 10
    assert limit.take("a") is None
    clock.now += 5
    assert limit.take("a") == 45  # the first event turns 60 s old in 45 s
    assert limit.take("b") is None  # other keys are counted apart
    clock.now += 45
    assert limit.take("a") is None


def test_a_refused_take_counts_nothing_and_give_back_uncounts() -> None:
    clock = Clock()
    limit = SlidingWindowLimit(limit=1, window_s=60, clock=clock)
    assert limit.take("a") is None
    assert limit.take("a") is not None
    limit.give_back("a")
    assert limit.take("a") is None
