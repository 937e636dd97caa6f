"""grader.uncaught: the in-process comparison behind "why a mutant was not caught", piece by piece."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from grader import judge
from grader.uncaught import CallRecorder, RecordedCall, difference, random_calls, run_call

PARAMETERS = ("x", "scale")


def call(*args: object, check: str = "c.one") -> RecordedCall:
    return RecordedCall(check, "f", tuple(args), {})


def scaled(x: torch.Tensor, scale: float) -> torch.Tensor:
    return x * scale


def outcome_difference(reference: Callable[..., Any], mutant: Callable[..., Any], *args: object) -> str:
    recorded = call(*args)
    return difference(run_call(reference, PARAMETERS, recorded), run_call(mutant, PARAMETERS, recorded))


def test_the_same_function_makes_no_difference() -> None:
    assert outcome_difference(scaled, scaled, torch.ones(3), 2.0) == ""


@pytest.mark.parametrize(
    "mutant, args, expected",
    [
        pytest.param(lambda x, scale: x * scale + 1e-3, (torch.ones(3), 2.0), "3 of 3 values differ", id="value"),
        pytest.param(lambda x, scale: 1 / 0, (torch.ones(3), 2.0),
                     "the reference returns float32[3] [2, 2, 2], the mutant raises ZeroDivisionError", id="raises"),
        pytest.param(lambda x, scale: x.mul_(scale), (torch.ones(3), 2.0),
                     "the mutant modifies x in place, the reference nothing", id="in-place"),
        pytest.param(lambda x, scale: x.detach() * scale, (torch.ones(3, requires_grad=True), 2.0),
                     "x.grad is None for the mutant, set for the reference", id="detached"),
        pytest.param(lambda x, scale: x * scale + (x * x).detach() - x * x,  # the right value, not its gradient
                     (torch.ones(3, requires_grad=True), 2.0), "x.grad", id="wrong-gradient"),
    ],
)
def test_what_differs_is_named(mutant: Callable[..., Any], args: tuple[object, ...], expected: str) -> None:
    assert expected in outcome_difference(scaled, mutant, *args)


def test_the_same_exception_type_is_no_difference() -> None:
    def strict(x: torch.Tensor, scale: float) -> None:
        raise ValueError("scale must be positive")

    def terse(x: torch.Tensor, scale: float) -> None:
        raise ValueError("bad")

    assert outcome_difference(strict, terse, torch.ones(1), -1.0) == ""


def test_every_call_gets_fresh_copies_of_its_inputs() -> None:
    x = torch.ones(2)
    recorded = call(x, 3.0)
    run_call(lambda x, scale: x.mul_(scale), PARAMETERS, recorded)
    assert torch.equal(recorded.args[0], torch.ones(2)) and torch.equal(x, torch.ones(2))


def test_random_calls_redraw_float_tensors_and_keep_the_rest() -> None:
    recorded = [call(torch.ones(2, 3, dtype=torch.float64, requires_grad=True), 2.0),
                call(torch.zeros(2, 3, dtype=torch.float64, requires_grad=True), 2.0),  # the same shape: one family
                call(torch.arange(4), 1.0)]  # no floating tensor: nothing to redraw
    drawn = random_calls(recorded)
    assert len(drawn) == 2 and all(d.origin.startswith("random") and d.check == "c.one" for d in drawn)
    for item in drawn:
        x, scale = item.args
        assert x.shape == (2, 3) and x.dtype == torch.float64 and x.requires_grad and scale == 2.0
        assert not torch.equal(x, torch.ones(2, 3, dtype=torch.float64))
    assert not torch.equal(drawn[0].args[0], drawn[1].args[0])
    again = random_calls(recorded)
    assert all(torch.equal(a.args[0], b.args[0]) for a, b in zip(drawn, again, strict=True))  # seeded


def test_the_recorder_puts_the_judge_back() -> None:
    run_check, run_calls = judge.run_check, judge.CheckRunner.run_calls
    with CallRecorder().active():
        assert judge.run_check is not run_check and judge.CheckRunner.run_calls is not run_calls
    assert judge.run_check is run_check and judge.CheckRunner.run_calls is run_calls


def test_the_recorder_says_when_the_judge_has_nothing_to_wrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(judge, "run_check")
    recorder = CallRecorder()
    with recorder.active():
        pass
    assert "no longer has run_check" in recorder.unavailable


def test_the_recorder_leaves_out_calls_too_large_to_copy() -> None:
    recorder = CallRecorder()
    recorder.keep("c.big", "f", (torch.zeros(2_000_000),), {})
    recorder.keep("c.small", "f", (torch.zeros(3), 1.0), {})
    assert [c.check for c in recorder.calls] == ["c.small"] and recorder.skipped == 1
