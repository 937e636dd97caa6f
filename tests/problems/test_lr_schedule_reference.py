"""Fast in-process tests of the lr_schedule reference: the statement's table and its boundaries."""

import math
from types import ModuleType

import pytest

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("lr_schedule").reference  # it imports helpers.py: load_problem makes that work


@pytest.mark.parametrize(("step", "expected"), [
    pytest.param(0, 0.25, id="first-step"), pytest.param(3, 1.0, id="last-warmup-step"),
    pytest.param(4, 1.0, id="peak"), pytest.param(6, 0.1 + 0.9 * (1 + math.cos(math.pi / 4)) / 2, id="quarter"),
    pytest.param(8, 0.55, id="halfway"), pytest.param(12, 0.1, id="end"), pytest.param(10**6, 0.1, id="after"),
])
def test_statement_table(ref: ModuleType, step: int, expected: float) -> None:
    rate = ref.lr_at(step, 1.0, 4, 12, 0.1)
    assert type(rate) is float
    assert rate == pytest.approx(expected, rel=1e-12)


def test_no_warmup_starts_at_peak(ref: ModuleType) -> None:
    assert ref.lr_at(0, 0.3, 0, 10) == 0.3


def test_monotone_after_warmup(ref: ModuleType) -> None:
    rates = [ref.lr_at(s, 1.0, 5, 50, 0.2) for s in range(5, 60)]
    assert all(a >= b for a, b in zip(rates, rates[1:], strict=False))


@pytest.mark.parametrize(("args", "error"), [
    pytest.param((1.0, 1.0, 4, 12), TypeError, id="float-step"),
    pytest.param((True, 1.0, 4, 12), TypeError, id="bool-step"),
    pytest.param((-1, 1.0, 4, 12), ValueError, id="negative-step"),
    pytest.param((0, 1.0, 4, 4), ValueError, id="empty-decay-span"),
    pytest.param((0, 1.0, 4, 12, 2.0), ValueError, id="floor-above-peak"),
])
def test_contract_violations(ref: ModuleType, args: tuple[float, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        ref.lr_at(*args)
