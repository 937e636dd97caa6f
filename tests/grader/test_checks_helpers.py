"""grader.checks: each assertion helper passes what it should and fails with a message a learner can act on."""

from __future__ import annotations

import itertools
import math
import types
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest
import torch

from grader.calls import CallResult, CheckFailed, ExceptionInfo, SubmissionRaised, TracebackLine
from grader.checks import (
    central_differences,
    collect_checks,
    expect,
    expect_close,
    expect_equal,
    expect_grad_close,
    expect_grad_none,
    expect_no_alias,
    expect_raises,
    expect_tensor,
    expect_unchanged,
    fail,
    tolerance,
)


def failure(helper: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    with pytest.raises(CheckFailed) as caught:
        helper(*args, **kwargs)
    return str(caught.value)


def raised(type_name: str = "ValueError", message: str = "bad", ancestry: tuple[str, ...] | None = None,
           line: int | None = 7) -> ExceptionInfo:
    traceback = (TracebackLine(line, "f", "raise ..."),) if line is not None else ()
    return ExceptionInfo(type=type_name, ancestry=ancestry or (type_name, "Exception", "BaseException"),
                         message=message, traceback=traceback)


class FakeFunction:
    """A SubmissionFunction that runs a local Python function, as the judge would run the learner's."""

    def __init__(self, name: str, implementation: Callable[..., Any]) -> None:
        self.name = name
        self.implementation = implementation
        self.batches: list[int] = []

    def _result(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> CallResult:
        call = f"{self.name}(...)"
        try:
            return CallResult(function=self.name, call=call, value=self.implementation(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - summarised like the worker does
            return CallResult(function=self.name, call=call, raised=raised(type(exc).__name__, str(exc),
                              tuple(k.__name__ for k in type(exc).__mro__)))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._result(args, kwargs).unwrap()

    def call(self, *args: Any, grads: Sequence[str] = (), **kwargs: Any) -> CallResult:
        return self._result(args, kwargs)

    def map(self, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]], *, grads: Sequence[str] = (),
            grad_outputs: Sequence[Any] | None = None, keep: bool = False) -> list[CallResult]:
        calls = list(calls)
        self.batches.append(len(calls))
        return [self._result(tuple(args), dict(kwargs)) for args, kwargs in calls]


# ------------------------------------------------------------------------------------------ fail / expect


def test_fail_and_expect() -> None:
    assert failure(fail, "no") == "no"
    expect(True, "unused")
    assert failure(expect, False, "because") == "because"


# ------------------------------------------------------------------------------------------- expect_close


@pytest.mark.parametrize(
    "got, expected, kwargs",
    [
        pytest.param(torch.ones(2, 3), torch.ones(2, 3), {}, id="equal"),
        pytest.param(torch.ones(3) + 5e-6, torch.ones(3), {}, id="within-float32-tolerance"),
        pytest.param(torch.ones(3, dtype=torch.float64) + 1e-3, torch.ones(3, dtype=torch.float64), {"atol": 1e-2},
                     id="custom-atol"),
        pytest.param(torch.ones(3, dtype=torch.float64), torch.ones(3), {"check_dtype": False}, id="dtype-ignored"),
        pytest.param(torch.tensor([math.nan, 1.0]), torch.tensor([math.nan, 1.0]), {"equal_nan": True}, id="nan"),
        pytest.param(torch.tensor([math.inf, -math.inf]), torch.tensor([math.inf, -math.inf]), {}, id="same-inf"),
        pytest.param(torch.empty(0, 3), torch.empty(0, 3), {}, id="empty"),
        pytest.param(torch.tensor([1, 2]), torch.tensor([1, 2]), {}, id="integers"),
        pytest.param((torch.ones(1), 2.0, "x"), (torch.ones(1), 2.0, "x"), {}, id="tuple"),
        pytest.param([1.0 + 1e-12], [1.0], {}, id="list-of-floats"),
        pytest.param(0.1 + 0.2, 0.3, {}, id="python-float"),
        pytest.param(3, 3.0, {}, id="int-for-float"),
        pytest.param(torch.ones(2, requires_grad=True) * 1, torch.ones(2), {}, id="requires-grad-ignored"),
    ],
)
def test_expect_close_passes(got: Any, expected: Any, kwargs: dict[str, Any]) -> None:
    expect_close(got, expected, **kwargs)


@pytest.mark.parametrize(
    "got, expected, kwargs, parts",
    [
        pytest.param(torch.zeros(2, 3), torch.zeros(3, 2), {}, ["the result: expected shape (3, 2), got (2, 3)"],
                     id="shape"),
        pytest.param(torch.zeros(2), torch.zeros(2, dtype=torch.float64), {},
                     ["expected dtype torch.float64, got torch.float32"], id="dtype"),
        pytest.param(torch.zeros(2, device="meta"), torch.zeros(2), {}, ["expected device cpu, got meta"],
                     id="device"),
        pytest.param(3, torch.zeros(2), {}, ["expected a torch.Tensor, got int 3"], id="not-a-tensor"),
        pytest.param(torch.tensor(1.0), torch.tensor(2.0), {}, ["expected 2, got 1", "rtol=1e-05, atol=1e-06"],
                     id="scalar-tensor"),
        pytest.param(torch.tensor([math.nan]), torch.tensor([1.0]), {"equal_nan": True}, ["expected 1, got nan"],
                     id="nan-for-number"),
        pytest.param(torch.tensor([math.nan]), torch.tensor([math.nan]), {}, ["expected nan, got nan"],
                     id="nan-without-equal-nan"),
        pytest.param(torch.tensor([math.inf]), torch.tensor([5.0]), {}, ["expected 5, got inf"], id="inf-for-number"),
        # Expected ±inf (e.g. masked logits): a finite value or the opposite infinity is wrong.
        pytest.param(torch.tensor([5.0]), torch.tensor([math.inf]), {}, ["expected inf, got 5"],
                     id="number-for-inf"),
        pytest.param(torch.tensor([0.0, math.inf]), torch.tensor([0.0, -math.inf]), {}, ["expected -inf, got inf"],
                     id="opposite-inf"),
        pytest.param(torch.tensor([1, 2]), torch.tensor([1, 3]), {}, ["1 of 2 values differ (rtol=0, atol=0)"],
                     id="integers-exact"),
        pytest.param((torch.ones(1),), (torch.ones(1), torch.ones(1)), {},
                     ["expected a tuple of 2 items, got (float32[1] [1],)"], id="tuple-length"),
        pytest.param(torch.ones(1), (torch.ones(1),), {}, ["expected a tuple of 1 items"], id="tuple-for-tensor"),
        pytest.param((torch.ones(1), torch.zeros(1)), (torch.ones(1), torch.ones(1)), {},
                     ["the result[1]: expected 1, got 0"], id="tuple-item-named"),
        pytest.param(1.0, 1.1, {}, ["the result: expected 1.1, got 1"], id="python-float"),
        pytest.param(True, 1.0, {}, ["expected a number close to 1, got True"], id="bool-is-not-a-number"),
        pytest.param(torch.tensor([0.0]), torch.tensor([1.0]), {"what": "the loss", "call": "f(x=1)",
                     "hint": "(did you normalise?)"}, ["the loss of f(x=1): ", "(did you normalise?)"], id="labels"),
    ],
)
def test_expect_close_failures(got: Any, expected: Any, kwargs: dict[str, Any], parts: list[str]) -> None:
    message = failure(expect_close, got, expected, **kwargs)
    for part in parts:
        assert part in message


def test_expect_close_reports_errors_and_first_and_worst_index() -> None:
    got = torch.zeros(2, 3)
    got[0, 1] = 0.5  # first mismatch
    got[1, 2] = 2.0  # worst mismatch
    expected = torch.zeros(2, 3)
    message = failure(expect_close, got, expected, call="f(x)")
    assert message.startswith("the result of f(x): 2 of 6 values differ (rtol=1e-05, atol=1e-06)")
    assert "max abs error 2 (expected 0 at every such value, so no relative error)" in message
    assert "max rel error" not in message  # it was 2e+30: the error divided by a floor of 1e-30
    assert "first at index [0, 1]: expected 0, got 0.5" in message
    assert "worst at index [1, 2]: expected 0, got 2" in message


def test_expect_close_relative_error_leaves_out_the_values_expected_to_be_zero() -> None:
    got = torch.tensor([1.1, 0.5, 3.0], dtype=torch.float64)
    expected = torch.tensor([1.0, 0.0, 3.0], dtype=torch.float64)
    message = failure(expect_close, got, expected)
    assert "max abs error 0.5, max rel error 0.1 (1 more where 0 is expected)" in message
    assert "e+" not in message


def test_expect_close_counts_nan_apart_instead_of_calling_the_error_zero() -> None:
    got = torch.tensor([float("nan"), float("nan"), 1.0])
    message = failure(expect_close, got, torch.tensor([0.0, 0.0, 1.0]))
    assert "2 of 3 values differ" in message and "2 are nan or infinite" in message
    assert "max abs error" not in message  # it said "max abs error 0": the nan entries were left out of the max


def test_expect_close_relative_error_and_single_worst() -> None:
    got = torch.tensor([1.0, 2.0, 4.4], dtype=torch.float64)
    expected = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64)
    message = failure(expect_close, got, expected)
    assert "1 of 3 values differ" in message
    assert "max abs error 0.4" in message and "max rel error 0.1" in message
    assert "first at index [2]: expected 4, got 4.4" in message
    assert "worst" not in message  # first and worst are the same element


@pytest.mark.parametrize(
    "dtype, expected",
    [
        (torch.float64, (1e-7, 1e-9)),
        (torch.float32, (1e-5, 1e-6)),
        (torch.float16, (1e-2, 1e-3)),
        (torch.bfloat16, (2e-2, 1e-2)),
        (torch.int64, (0.0, 0.0)),
        (torch.bool, (0.0, 0.0)),
    ],
)
def test_tolerance(dtype: torch.dtype, expected: tuple[float, float]) -> None:
    assert tolerance(dtype) == expected


def test_tolerances_are_used_by_dtype() -> None:
    expect_close(torch.tensor([1.0], dtype=torch.float16) + 0.005, torch.tensor([1.0], dtype=torch.float16))
    failure(expect_close, torch.tensor([1.0], dtype=torch.float64) + 1e-5, torch.tensor([1.0], dtype=torch.float64))


# ------------------------------------------------------------------------------------------- expect_equal


@pytest.mark.parametrize(
    "got, expected",
    [
        pytest.param(1, 1, id="int"),
        pytest.param(True, True, id="bool"),
        pytest.param("a", "a", id="str"),
        pytest.param(None, None, id="none"),
        pytest.param((1, (2, "x")), (1, (2, "x")), id="nested-tuple"),
        pytest.param([1, 2], [1, 2], id="list"),
        pytest.param(torch.tensor([1.0, math.nan]), torch.tensor([1.0, math.nan]), id="tensor-with-nan"),
        pytest.param(torch.tensor([True]), torch.tensor([True]), id="bool-tensor"),
    ],
)
def test_expect_equal_passes(got: Any, expected: Any) -> None:
    expect_equal(got, expected)


@pytest.mark.parametrize(
    "got, expected, part",
    [
        pytest.param(True, 1, "expected 1 (int), got True (bool)", id="true-is-not-1"),
        pytest.param(1, True, "expected True (bool), got 1 (int)", id="1-is-not-true"),
        pytest.param(1.0, 1, "expected 1 (int), got 1.0 (float)", id="float-is-not-int"),
        pytest.param((1, 2), [1, 2], "expected [1, 2], got (1, 2)", id="tuple-is-not-list"),
        pytest.param((1,), (1, 2), "expected (1, 2), got (1,)", id="tuple-length"),
        pytest.param((1, 3), (1, 2), "the result[1]: expected 2 (int), got 3 (int)", id="tuple-item"),
        pytest.param("a", "b", "expected 'b' (str), got 'a' (str)", id="str"),
        pytest.param(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.001]), "expected exactly equal values",
                     id="tensor-not-bit-equal"),
        pytest.param(torch.tensor([1]), torch.tensor([1.0]), "expected dtype torch.float32, got torch.int64",
                     id="tensor-dtype"),
        pytest.param(torch.ones(2), torch.ones(3), "expected shape (3,), got (2,)", id="tensor-shape"),
    ],
)
def test_expect_equal_failures(got: Any, expected: Any, part: str) -> None:
    assert part in failure(expect_equal, got, expected)


# ------------------------------------------------------------------------------------------ expect_tensor


def test_expect_tensor_passes_and_returns_the_tensor() -> None:
    value = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    assert expect_tensor(value, shape=(2, 3), dtype=torch.float64, device="cpu", requires_grad=True) is value


@pytest.mark.parametrize(
    "got, kwargs, message",
    [
        pytest.param([1.0], {}, "the result: expected a torch.Tensor, got list [1.0]", id="list"),
        pytest.param(torch.ones(2), {"shape": [2, 1]}, "the result: expected shape (2, 1), got (2,)", id="shape"),
        pytest.param(torch.ones(2), {"dtype": torch.int64}, "the result: expected dtype torch.int64, got torch.float32",
                     id="dtype"),
        pytest.param(torch.ones(2), {"requires_grad": True},
                     "the result: expected to require grad, but requires_grad is False", id="needs-grad"),
        pytest.param(torch.ones(2, requires_grad=True), {"requires_grad": False, "what": "the loss", "call": "f()"},
                     "the loss of f(): expected not to require grad, but requires_grad is True", id="no-grad"),
        # shape is reported before dtype: the order a learner should fix them in
        pytest.param(torch.ones(2), {"shape": (3,), "dtype": torch.int64}, "the result: expected shape (3,), got (2,)",
                     id="shape-first"),
    ],
)
def test_expect_tensor_failures(got: Any, kwargs: dict[str, Any], message: str) -> None:
    assert failure(expect_tensor, got, **kwargs) == message


# ------------------------------------------------------------------------------------------ expect_raises


def strict_sqrt(x: float) -> float:
    if x < 0:
        raise ValueError("negative")
    if isinstance(x, bool):
        raise TypeError("bool")
    return math.sqrt(x)


def test_expect_raises_passes_for_the_type_or_a_subclass() -> None:
    function = FakeFunction("strict_sqrt", strict_sqrt)
    info = expect_raises("ValueError", function, -1.0)
    assert info.type == "ValueError" and info.message == "negative"
    assert expect_raises(("TypeError", "Exception"), function, -1.0).type == "ValueError"  # ancestry counts


def test_expect_raises_names_the_wrong_type() -> None:
    message = failure(expect_raises, "TypeError", FakeFunction("strict_sqrt", strict_sqrt), -1.0)
    assert message == "strict_sqrt(...): expected TypeError, but it raised ValueError: negative (line 7 of your code)"


def test_expect_raises_says_when_it_returned_instead() -> None:
    message = failure(expect_raises, ["TypeError", "ValueError"], FakeFunction("strict_sqrt", strict_sqrt), 4.0)
    assert message == "strict_sqrt(...): expected TypeError or ValueError, but it returned 2.0"


# ---------------------------------------------------------------------------- facts about one call's result


def result(**fields: Any) -> CallResult:
    return CallResult(function="f", call="f(x=float32[2])", **fields)


def test_expect_unchanged() -> None:
    expect_unchanged(result(value=1))
    assert failure(expect_unchanged, result(mutated=("x", "y"))) == (
        "f(x=float32[2]) modified its argument(s) x, y in place; inputs must be left unchanged (work on a copy)")


def test_expect_no_alias() -> None:
    expect_no_alias(result(mutated=("x",)))  # a mutation is not an alias
    message = failure(expect_no_alias, result(aliased=("queue",)))
    assert message.startswith("f(x=float32[2]) returned a tensor that shares storage with queue;")
    assert ".clone()" in message


def test_expect_grad_none() -> None:
    expect_grad_none(result(grads={"key": None, "query": torch.ones(2)}), "key")
    message = failure(expect_grad_none, result(grads={"key": torch.ones(2)}), "key")
    assert message == ("after backward() on f(x=float32[2]), key.grad should be None (no gradient may flow into "
                       "key), but it is float32[2] [1, 1]")
    assert "was not requested" in failure(expect_grad_none, result(grads={}), "key")


def test_expect_grad_close() -> None:
    expected = torch.tensor([3.0, 3.0], dtype=torch.float64)
    expect_grad_close(result(grads={"x": expected.clone()}), "x", expected)
    missing = failure(expect_grad_close, result(grads={"x": None}), "x", expected)
    assert missing == ("after backward() on f(x=float32[2]), x.grad is None; the result must depend "
                       "differentiably on x")
    wrong = failure(expect_grad_close, result(grads={"x": expected * 2}), "x", expected, source="finite differences")
    assert wrong.startswith("x.grad (compared with finite differences) of f(x=float32[2]): 2 of 2 values differ")
    loose = result(grads={"x": expected + 1e-3})
    expect_grad_close(loose, "x", expected, atol=1e-2)


@pytest.mark.parametrize(
    "helper, args",
    [
        pytest.param(expect_unchanged, (), id="unchanged"),
        pytest.param(expect_no_alias, (), id="no-alias"),
        pytest.param(expect_grad_none, ("x",), id="grad-none"),
        pytest.param(expect_grad_close, ("x", torch.ones(1)), id="grad-close"),
    ],
)
def test_fact_helpers_report_the_learners_exception_first(helper: Callable[..., None], args: tuple[Any, ...]) -> None:
    with pytest.raises(SubmissionRaised) as caught:
        helper(result(raised=raised("IndexError", "out of range", line=12)), *args)
    assert str(caught.value) == "f(x=float32[2]) raised IndexError: out of range (line 12 of your code)"


def test_exception_summary_truncates_long_messages() -> None:
    summary = raised("ValueError", "m" * 2000, line=None).summary()
    assert summary.startswith("ValueError: mmm") and summary.endswith("...") and len(summary) < 600


# ------------------------------------------------------------------------------------- central_differences


def test_central_differences_matches_the_analytic_gradient_in_one_batch() -> None:
    function = FakeFunction("energy", lambda x, scale: (scale * x**2).sum() + x.prod())
    x = torch.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=torch.float64)
    gradient = central_differences(function, (x, 1.5), 0)
    assert gradient.shape == x.shape and gradient.dtype == torch.float64
    analytic = 3.0 * x + x.prod() / x
    torch.testing.assert_close(gradient, analytic, rtol=1e-6, atol=1e-6)
    assert function.batches == [2 * x.numel()]  # one round trip
    assert x.tolist() == [[1.0, -2.0], [0.5, 3.0]]  # the input was not perturbed in place


def test_central_differences_passes_kwargs() -> None:
    function = FakeFunction("energy", lambda x, *, power: (x**power).sum())
    gradient = central_differences(function, (torch.tensor([2.0], dtype=torch.float64),), 0, kwargs={"power": 3})
    assert gradient.item() == pytest.approx(12.0, rel=1e-6)


def test_central_differences_needs_a_float64_tensor() -> None:
    function = FakeFunction("energy", lambda x: x.sum())
    with pytest.raises(TypeError, match="float64"):
        central_differences(function, (torch.ones(2),), 0)


def test_central_differences_needs_a_scalar_result() -> None:
    function = FakeFunction("energy", lambda x: x * 2)
    assert "expected shape ()" in failure(central_differences, function, (torch.ones(2, dtype=torch.float64),), 0)


def test_central_differences_reports_the_learners_exception() -> None:
    def broken(x: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("nope")

    with pytest.raises(SubmissionRaised, match="raised RuntimeError: nope"):
        central_differences(FakeFunction("energy", broken), (torch.ones(1, dtype=torch.float64),), 0)


# ------------------------------------------------------------------------------------------ collect_checks


CHECKS_SOURCE = '''
from grader.checks import check

@check("loss.second_defined_first", "B")
def b(sub, ref):
    pass

def helper():
    pass

@check("loss.values", "A", required=False)
def a(sub, ref, ctx):
    pass

@check("extra.thing", "C")
def c(sub, ref):
    pass

@check("x.custom_group", "D", group="loss")
def d(sub, ref):
    pass
'''


def checks_module(source: str) -> types.ModuleType:
    module = types.ModuleType("fake_checks")
    module.__file__ = "/problems/fake/checks.py"
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 - trusted test source
    return module


def test_collect_checks_order_groups_required_and_context() -> None:
    checks = collect_checks(checks_module(CHECKS_SOURCE), required_groups=["loss"])
    assert [c.id for c in checks] == ["loss.second_defined_first", "loss.values", "extra.thing", "x.custom_group"]
    assert [c.title for c in checks] == ["B", "A", "C", "D"]
    assert [c.group for c in checks] == ["loss", "loss", "extra", "loss"]
    # required: derived from required_groups unless the check says required=False (advisory)
    assert [c.required for c in checks] == [True, False, False, True]
    assert [c.wants_context for c in checks] == [False, True, False, False]


def test_collect_checks_required_groups_decide() -> None:
    checks = collect_checks(checks_module(CHECKS_SOURCE), required_groups=["extra"])
    assert {c.id: c.required for c in checks} == {
        "loss.second_defined_first": False, "loss.values": False, "extra.thing": True, "x.custom_group": False}


def test_collect_checks_refuses_duplicate_ids() -> None:
    source = CHECKS_SOURCE + '''
@check("loss.values", "again")
def again(sub, ref):
    pass
'''
    with pytest.raises(ValueError, match=r"/problems/fake/checks.py: check id 'loss.values' is used twice"):
        collect_checks(checks_module(source), required_groups=["loss"])


def test_collect_checks_of_a_module_without_checks() -> None:
    assert collect_checks(checks_module("x = 1\n"), required_groups=["loss"]) == ()


SPECIAL = [0.0, 1.0, 1.0 + 1e-9, 1.001, -1.0, 1e300, math.inf, -math.inf, math.nan]


@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize(("rtol", "atol"), [(0.0, 0.0), (1e-6, 1e-8), (0.01, 0.0), (0.0, math.inf)])
def test_a_tensor_comparison_passes_exactly_when_every_pair_is_close(
    equal_nan: bool, rtol: float, atol: float
) -> None:
    """Close means |got - expected| <= atol + rtol |expected| between finite numbers, an infinity only matches
    itself and nan matches nan only with equal_nan, whichever path the comparison takes."""
    from grader.checks import _tensor_mismatch

    for got, expected in itertools.product(SPECIAL, SPECIAL):
        finite = math.isfinite(got) and math.isfinite(expected)
        close = (
            (finite and abs(got - expected) <= atol + rtol * abs(expected))
            or (math.isinf(expected) and got == expected)
            or (equal_nan and math.isnan(got) and math.isnan(expected))
        )
        pair = torch.tensor([got, 0.0], dtype=torch.float64), torch.tensor([expected, 0.0], dtype=torch.float64)
        message = _tensor_mismatch(*pair, rtol=rtol, atol=atol, equal_nan=equal_nan)
        assert (message == "") == close, (got, expected, message)


def test_a_call_is_described_in_the_failure_message_and_only_when_a_check_fails() -> None:
    described: list[str] = []

    def description() -> str:
        described.append("f(x)")
        return "f(x=float64[2])"

    passing = CallResult(function="f", call=description, value=torch.ones(2, dtype=torch.float64))
    expect_close(passing.value, torch.ones(2, dtype=torch.float64), call=passing)
    assert described == []

    failing = CallResult(function="f", call=description, value=torch.zeros(2, dtype=torch.float64))
    with pytest.raises(CheckFailed, match=r"the result of f\(x=float64\[2\]\): 2 of 2 values differ"):
        expect_close(failing.value, torch.ones(2, dtype=torch.float64), call=failing)


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 1, 5), (1, 1), (4, 3, 2, 2)])
def test_a_flat_index_is_unravelled_as_torch_does(shape: tuple[int, ...]) -> None:
    from grader.checks import _unravel

    for flat in range(math.prod(shape)):
        assert _unravel(flat, shape) == tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), shape))


def test_a_hint_follows_a_failure_as_a_sentence_of_its_own() -> None:
    from grader.checks import hint

    with pytest.raises(CheckFailed) as caught, hint("Normalise each row first."):
        expect_close(torch.zeros(1, dtype=torch.float64), torch.ones(1, dtype=torch.float64), what="the loss")
    assert str(caught.value) == "the loss: expected 1, got 0 (rtol=1e-07, atol=1e-09). Normalise each row first."


def test_a_hint_leaves_the_learners_own_exception_alone() -> None:
    from grader.checks import hint

    error = ExceptionInfo(type="ValueError", ancestry=("ValueError", "Exception"), message="bad x")
    raised = CallResult(function="f", call="f(x=1)", raised=error)
    with pytest.raises(SubmissionRaised) as caught, hint("Never shown."):
        raised.unwrap()
    assert "Never shown" not in str(caught.value)
