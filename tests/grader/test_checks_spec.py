"""grader.checks, specified as docs/authoring.md documents it: for each helper, a table of inputs -> verdict and
exact message. Complements test_checks_helpers.py; both run under `make mutation`, so each row is here because
a behaviour an author or learner relies on would otherwise change unnoticed."""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest
import torch

from grader.calls import CallResult, CheckFailed, ExceptionInfo, SubmissionRaised
from grader.checks import (
    central_differences,
    check,
    collect_checks,
    collect_legal_inputs,
    expect_close,
    expect_equal,
    expect_grad_close,
    expect_grad_none,
    expect_no_alias,
    expect_raises,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    hint,
    legal_inputs,
    precision_note,
    reference_grads,
    replay_agrees,
    same_bits,
    seeded_randn,
    seeded_uniform,
)

F64 = torch.float64


def failure(helper: Callable[..., Any], *args: Any, **kwargs: Any) -> CheckFailed:
    with pytest.raises(CheckFailed) as caught:
        helper(*args, **kwargs)
    return caught.value


def message(helper: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    return str(failure(helper, *args, **kwargs))


def info(type_name: str, text: str = "bad") -> ExceptionInfo:
    return ExceptionInfo(type=type_name, ancestry=(type_name, "Exception", "BaseException"), message=text)


class Recording:
    """A SubmissionFunction over a local function that records every call it was asked to make."""

    def __init__(self, name: str, implementation: Callable[..., Any]) -> None:
        self.name = name
        self.implementation = implementation
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.batches = 0

    def _result(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> CallResult:
        self.calls.append((args, kwargs))
        described = f"{self.name}({', '.join([*map(repr, args), *(f'{k}={v!r}' for k, v in kwargs.items())])})"
        try:
            return CallResult(function=self.name, call=described, value=self.implementation(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - summarised as the worker does
            return CallResult(function=self.name, call=described, raised=ExceptionInfo(
                type=type(exc).__name__, ancestry=tuple(k.__name__ for k in type(exc).__mro__), message=str(exc)))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._result(args, kwargs).unwrap()

    def call(self, *args: Any, grads: Sequence[str] = (), **kwargs: Any) -> CallResult:
        return self._result(args, kwargs)

    def map(self, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]], *, grads: Sequence[str] = (),
            grad_outputs: Sequence[Any] | None = None, keep: bool = False) -> list[CallResult]:
        self.batches += 1
        return [self._result(tuple(args), dict(kwargs)) for args, kwargs in calls]


# ---------------------------------------------------------------------------------------- @check, collect_checks


def module_of(source: str) -> types.ModuleType:
    module = types.ModuleType("spec_checks")
    module.__file__ = "/problems/spec/checks.py"
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 - trusted test source
    return module


@pytest.mark.parametrize(
    "decorator, group_listed, required",
    [
        pytest.param("", True, True, id="default-in-required-group"),
        pytest.param("", False, False, id="default-in-other-group"),
        pytest.param(", required=False", True, False, id="advisory-in-required-group"),
        pytest.param(", required=False", False, False, id="advisory-in-other-group"),
        pytest.param(", required=True", True, True, id="required-in-required-group"),
        # required=True cannot make a group decide *solved* that problem.toml does not list
        pytest.param(", required=True", False, False, id="required-in-other-group"),
    ],
)
def test_required_is_the_groups_listing_unless_the_check_makes_itself_advisory(
    decorator: str, group_listed: bool, required: bool
) -> None:
    source = f'from grader.checks import check\n@check("loss.one", "One"{decorator})\ndef one(sub, ref):\n    pass\n'
    (found,) = collect_checks(module_of(source), required_groups=["loss"] if group_listed else ["other"])
    assert found.required is required


@pytest.mark.parametrize(
    "check_id, group, expected",
    [
        pytest.param("loss.hand.example", None, "loss", id="part-before-the-first-dot"),
        pytest.param("loss", None, "loss", id="no-dot"),
        pytest.param("x.y", "grads", "grads", id="explicit-group"),
    ],
)
def test_group_defaults_to_the_part_of_the_id_before_the_first_dot(check_id: str, group: str | None,
                                                                    expected: str) -> None:
    def function(sub: Any, ref: Any) -> None:
        pass

    module = types.ModuleType("m")
    module.__file__ = "m.py"
    module.function = check(check_id, "T", group=group)(function)  # type: ignore[attr-defined]
    (found,) = collect_checks(module, required_groups=[expected])
    assert (found.id, found.title, found.group, found.required, found.function) == (
        check_id, "T", expected, True, function)


@pytest.mark.parametrize(
    "parameters, wants_context",
    [("", False), ("sub", False), ("sub, ref", False), ("sub, ref, ctx", True), ("sub, ref, ctx, extra=1", True)],
)
def test_a_check_gets_the_context_when_it_takes_a_third_parameter(parameters: str, wants_context: bool) -> None:
    source = f'from grader.checks import check\n@check("a.b", "T")\ndef one({parameters}):\n    pass\n'
    (found,) = collect_checks(module_of(source), required_groups=["a"])
    assert found.wants_context is wants_context


@pytest.mark.parametrize(
    "clauses",
    [[], ["loss"], ["loss.normalise", "grads.z2_detached"], ("a1_b.c2.d3",), ["x.0"]],
    ids=["none", "one-word", "two", "tuple-with-digits", "digit-part"],
)
def test_valid_clause_ids_are_kept_in_order(clauses: Sequence[str]) -> None:
    source = f'from grader.checks import check\n@check("a.b", "T", clauses={list(clauses)!r})\ndef one(s, r):\n  pass\n'
    (found,) = collect_checks(module_of(source), required_groups=["a"])
    assert found.clauses == tuple(clauses)


@pytest.mark.parametrize("bad", ["Loss.x", "1loss", "loss..x", "loss.", ".loss", "loss-x", "", "loss.X", 3],
                         ids=["capital", "digit-first", "double-dot", "trailing-dot", "leading-dot", "dash", "empty",
                              "capital-part", "not-a-string"])
def test_an_invalid_clause_id_is_refused_with_an_example(bad: Any) -> None:
    with pytest.raises(ValueError) as caught:
        check("a.b", "T", clauses=["ok.one", bad])
    assert str(caught.value) == (f"check 'a.b': clause id {bad!r} must be lowercase dotted words such as "
                                 "'loss.normalise'")


def test_clauses_given_as_one_string_are_refused() -> None:
    with pytest.raises(TypeError) as caught:
        check("a.b", "T", clauses="loss.normalise")
    assert str(caught.value) == "check 'a.b': clauses must be a list of clause ids, e.g. clauses=['loss.normalise']"


def test_checks_are_ordered_by_their_line_in_the_file_whatever_the_module_order() -> None:
    source = ('from grader.checks import check\n@check("a.first", "1")\ndef first(s, r):\n    pass\n'
              '@check("a.second", "2")\ndef second(s, r):\n    pass\n')
    defined = module_of(source)
    reordered = types.ModuleType("reordered")
    reordered.__file__ = defined.__file__
    reordered.second = defined.second  # type: ignore[attr-defined]
    reordered.first = defined.first  # type: ignore[attr-defined]
    assert [c.id for c in collect_checks(reordered, required_groups=["a"])] == ["a.first", "a.second"]


def test_a_marked_value_that_is_not_callable_is_not_a_check() -> None:
    module = module_of('from grader.checks import check\n@check("a.real", "R")\ndef real(s, r):\n    pass\n')

    class Marked:  # e.g. a helper object that copied a check's attributes
        __paperlab_check__ = ("a.fake", "F", "a", None, ())

    module.marked = Marked()  # type: ignore[attr-defined]
    assert [c.id for c in collect_checks(module, required_groups=["a"])] == ["a.real"]


def test_a_duplicate_id_names_the_file_and_the_id() -> None:
    source = ('from grader.checks import check\n@check("a.same", "1")\ndef one(s, r):\n    pass\n'
              '@check("a.same", "2")\ndef two(s, r):\n    pass\n')
    with pytest.raises(ValueError) as caught:
        collect_checks(module_of(source), required_groups=["a"])
    assert str(caught.value) == "/problems/spec/checks.py: check id 'a.same' is used twice"


# ------------------------------------------------------------------------------------ expect_close: Python floats


@pytest.mark.parametrize(
    "got, expected, kwargs, close",
    [
        # defaults: rtol 1e-7, atol 1e-9
        pytest.param(1.0 + 5e-8, 1.0, {}, True, id="default-rtol-admits"),
        pytest.param(1.0 + 5e-7, 1.0, {}, False, id="default-rtol-refuses"),
        pytest.param(5e-10, 0.0, {}, True, id="default-atol-admits"),
        pytest.param(5e-9, 0.0, {}, False, id="default-atol-refuses"),
        # an author's atol alone: rtol is then 0, not the default
        pytest.param(1.0005, 1.0, {"atol": 1e-3}, True, id="atol-admits"),
        pytest.param(1.9, 1.0, {"atol": 1e-3}, False, id="atol-refuses"),
        pytest.param(1000.00005, 1000.0, {"atol": 1e-5}, False, id="atol-alone-means-rtol-0"),
        # an author's rtol alone: atol is then 0, not the default
        pytest.param(101.0, 100.0, {"rtol": 0.02}, True, id="rtol-admits"),
        pytest.param(103.0, 100.0, {"rtol": 0.02}, False, id="rtol-refuses"),
        pytest.param(1e-10, 0.0, {"rtol": 0.5}, False, id="rtol-alone-means-atol-0"),
        pytest.param(1.5, 1.0, {"rtol": 0.0, "atol": 1.0}, True, id="both"),
        pytest.param(1.0, 1.0, {"rtol": 0.0, "atol": 0.0}, True, id="zero-tolerance-equal"),
        pytest.param(2, 2.0, {}, True, id="an-int-is-a-number"),
        # nan matches nan only with equal_nan, and equal_nan admits nothing else
        pytest.param(math.nan, math.nan, {"equal_nan": True}, True, id="nan-equal-nan"),
        pytest.param(math.nan, math.nan, {}, False, id="nan-without-equal-nan"),
        pytest.param(2.0, 1.0, {"equal_nan": True}, False, id="equal-nan-is-not-anything-goes"),
        pytest.param(math.nan, 1.0, {"equal_nan": True}, False, id="nan-for-a-number"),
        pytest.param(1.0, math.nan, {"equal_nan": True}, False, id="number-for-nan"),
        pytest.param(math.inf, math.inf, {}, True, id="same-infinity"),
        pytest.param(-math.inf, math.inf, {"atol": 1.0}, False, id="opposite-infinity"),
    ],
)
def test_expect_close_on_python_floats(got: float, expected: float, kwargs: dict[str, Any], close: bool) -> None:
    if close:
        expect_close(got, expected, **kwargs)
    else:
        assert message(expect_close, got, expected, **kwargs).startswith("the result: expected ")


@pytest.mark.parametrize(
    "got, expected, text",
    [
        pytest.param(1.0, 1.1, "the result: expected 1.1, got 1", id="short"),
        # values that differ must not print alike (.6g made this "expected 0.1, got 0.1")
        pytest.param(0.1000001, 0.1, "the result: expected 0.1, got 0.1000001", id="close-values-print-apart"),
        pytest.param(1.0 + 5e-7, 1.0, "the result: expected 1, got 1.0000005", id="digits-as-needed"),
        pytest.param(math.nan, 1.0, "the result: expected 1, got nan", id="nan"),
    ],
)
def test_a_float_mismatch_names_both_values_so_they_read_apart(got: float, expected: float, text: str) -> None:
    assert message(expect_close, got, expected) == text


@pytest.mark.parametrize("got", ["0.5", True, None, (0.5,)], ids=["str", "bool", "none", "tuple"])
def test_expect_close_wants_a_number_for_a_float(got: Any) -> None:
    assert message(expect_close, got, 0.5, what="the loss") == (
        f"the loss: expected a number close to 0.5, got {got!r}")


def test_a_float_mismatch_carries_the_call_the_hint_and_the_bare_message() -> None:
    result = CallResult(function="f", call="f(x=1)", value=2.0)
    caught = failure(expect_close, 2.0, 1.0, call=result, what="the loss", hint="Halve it.")
    assert str(caught) == "the loss of f(x=1): expected 1, got 2. Halve it."
    assert caught.bare == "the loss of f(x=1): expected 1, got 2"
    assert caught.call is result


def test_a_call_given_as_text_labels_the_message_but_is_not_a_call_result() -> None:
    caught = failure(expect_close, 2.0, 1.0, call="f(x=1)")
    assert str(caught) == "the result of f(x=1): expected 1, got 2"
    assert caught.call is None


# ---------------------------------------------------------------------------------------- expect_close: tensors


@pytest.mark.parametrize(
    "got, expected, kwargs, close",
    [
        pytest.param(torch.tensor([1.0]) * 1.001, torch.tensor([1.0]), {}, False, id="float32-default-refuses"),
        pytest.param(torch.tensor([1.0]) * 1.001, torch.tensor([1.0]), {"rtol": 1e-2}, True, id="author-rtol"),
        pytest.param(torch.tensor([1.0]) + 1e-3, torch.tensor([1.0]), {"atol": 1e-2}, True, id="author-atol"),
        pytest.param(torch.tensor([100.0]) + 1e-3, torch.tensor([100.0]), {"atol": 1e-4}, True,
                     id="author-atol-keeps-default-rtol"),
        pytest.param(torch.tensor([1e-3]), torch.tensor([0.0]), {"rtol": 0.5}, False, id="rtol-keeps-default-atol"),
        pytest.param(torch.tensor([math.nan]), torch.tensor([math.nan]), {"equal_nan": True}, True, id="equal-nan"),
        pytest.param(torch.tensor([math.nan]), torch.tensor([math.nan]), {}, False, id="nan-without-equal-nan"),
        pytest.param(torch.ones(2, dtype=F64), torch.ones(2), {}, False, id="dtype-checked"),
        pytest.param(torch.ones(2, dtype=F64), torch.ones(2), {"check_dtype": False}, True, id="dtype-ignored"),
        pytest.param(torch.ones(2, requires_grad=True) * 1.0, torch.ones(2), {}, True, id="grad-tracking-ignored"),
        pytest.param(torch.tensor([0.0, 3.0]), torch.tensor([-0.0, 3.0]), {"rtol": 0.0, "atol": 0.0}, True,
                     id="equal-values-at-zero-tolerance"),
        pytest.param(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 2**-22]), {"rtol": 0.0, "atol": 0.0}, False,
                     id="one-ulp-at-zero-tolerance"),
        pytest.param(torch.tensor([math.inf, -math.inf]), torch.tensor([math.inf, -math.inf]), {}, True,
                     id="equal-infinities"),
        pytest.param(torch.tensor([math.nan, 1.0]), torch.tensor([math.nan, 1.0]), {"rtol": 1.0}, False,
                     id="equal-but-nan-without-equal-nan"),
    ],
)
def test_expect_close_on_tensors(got: torch.Tensor, expected: torch.Tensor, kwargs: dict[str, Any],
                                 close: bool) -> None:
    if close:
        expect_close(got, expected, **kwargs)
    else:
        failure(expect_close, got, expected, **kwargs)


def test_a_tensor_mismatch_reports_the_authors_tolerances_and_hint() -> None:
    text = message(expect_close, torch.tensor([2.0]), torch.tensor([1.0]), rtol=0.01, atol=0.5, hint="Halve it.")
    assert text == "the result: expected 1, got 2 (rtol=0.01, atol=0.5). Halve it."


def test_a_tensor_mismatch_carries_the_call_and_the_bare_message() -> None:
    result = CallResult(function="f", call="f(x=1)", value=torch.zeros(1))
    caught = failure(expect_close, torch.zeros(1), torch.ones(1), call=result, hint="Add one.")
    assert caught.call is result
    assert caught.bare == "the result of f(x=1): expected 1, got 0 (rtol=1e-05, atol=1e-06)"


def test_a_tensor_on_another_device_is_refused() -> None:
    assert message(expect_close, torch.zeros(2, device="meta"), torch.zeros(2), call="f()") == (
        "the result of f(): expected device cpu, got meta")


@pytest.mark.parametrize(
    "got, text",
    [
        pytest.param(torch.tensor([1.0, 1.0001, 1.0002]),
                     "2 of 3 values differ (rtol=1e-05, atol=1e-06); max abs error 0.0002, max rel error 0.0002; "
                     "first at index [1]: expected 1, got 1.0001; worst at index [2]: expected 1, got 1.0002",
                     id="first-and-worst-below-one"),
        pytest.param(torch.tensor([1.5, math.nan, 1.0]),
                     "2 of 3 values differ (rtol=1e-05, atol=1e-06); max abs error 0.5, max rel error 0.5, "
                     "1 is nan or infinite; first at index [0]: expected 1, got 1.5; "
                     "worst at index [1]: expected 1, got nan", id="nan-is-the-worst"),
        pytest.param(torch.tensor([1.0, math.inf, 1.0]),
                     "1 of 3 values differ (rtol=1e-05, atol=1e-06); 1 is nan or infinite; "
                     "first at index [1]: expected 1, got inf", id="only-an-infinity"),
    ],
)
def test_a_tensor_mismatch_explains_what_differs(got: torch.Tensor, text: str) -> None:
    assert message(expect_close, got, torch.ones(3)) == f"the result: {text}"


def test_a_tensor_mismatch_indexes_every_dimension() -> None:
    got = torch.zeros(2, 2, 2, dtype=F64)
    got[1, 0, 1] = 3.0
    assert message(expect_close, got, torch.zeros(2, 2, 2, dtype=F64)) == (
        "the result: 1 of 8 values differ (rtol=1e-07, atol=1e-09); max abs error 3 (expected 0 at every such "
        "value, so no relative error); first at index [1, 0, 1]: expected 0, got 3")


@pytest.mark.parametrize(
    "got, expected, text",
    [
        pytest.param(1.0000001, 1.0, "expected 1, got 1.0000001", id="eight-digits"),
        pytest.param(1.0 + 1e-10, 1.0, "expected 1, got 1.0000000001", id="twelve-digits"),
        pytest.param(1.00000000012345, 1.0, "expected 1, got 1.00000000012", id="no-more-than-twelve"),
        pytest.param(1.0 + 4e-16, 1.0, "expected 1, got 1.0000000000000004", id="seventeen-digits"),
    ],
)
def test_tensor_values_that_differ_are_printed_with_enough_digits_to_differ(got: float, expected: float,
                                                                          text: str) -> None:
    got_text = message(expect_close, torch.tensor(got, dtype=F64), torch.tensor(expected, dtype=F64),
                       rtol=0.0, atol=0.0)
    assert got_text.split(" (rtol")[0] == f"the result: {text}"


# ----------------------------------------------------------------------------------------- expect_close: tuples


@pytest.mark.parametrize(
    "got, expected, kwargs",
    [
        pytest.param((torch.ones(1, dtype=F64), 1.0), (torch.ones(1), 1.0), {"check_dtype": False}, id="check-dtype"),
        pytest.param((torch.ones(1) + 1e-3,), (torch.ones(1),), {"atol": 1e-2}, id="atol"),
        pytest.param((torch.ones(1) * 1.001,), (torch.ones(1),), {"rtol": 1e-2}, id="rtol"),
        pytest.param([1.0005], [1.0], {"atol": 1e-3}, id="atol-on-floats"),
        pytest.param((101.0,), (100.0,), {"rtol": 0.02}, id="rtol-on-floats"),
        pytest.param((torch.tensor([math.nan]), math.nan), (torch.tensor([math.nan]), math.nan), {"equal_nan": True},
                     id="equal-nan"),
        pytest.param(((1.0, torch.ones(2)),), ((1.0, torch.ones(2)),), {}, id="nested"),
    ],
)
def test_a_tuple_is_compared_item_by_item_with_the_same_options(got: Any, expected: Any,
                                                                kwargs: dict[str, Any]) -> None:
    expect_close(got, expected, **kwargs)


def test_an_item_failure_names_the_item_the_call_and_keeps_the_hint() -> None:
    result = CallResult(function="f", call="f(x=1)", value=None)
    caught = failure(expect_close, (1.0, (2.0, 5.0)), (1.0, (2.0, 3.0)), call=result, what="the pair",
                     hint="Check the second.")
    assert str(caught) == "the pair[1][1] of f(x=1): expected 3, got 5. Check the second."
    assert caught.call is result


@pytest.mark.parametrize(
    "got, expected, text",
    [
        pytest.param((1.0,), (1.0, 2.0), "the result: expected a tuple of 2 items, got (1.0,)", id="shorter"),
        pytest.param([1.0, 2.0, 3.0], [1.0, 2.0], "the result: expected a list of 2 items, got [1.0, 2.0, 3.0]",
                     id="longer-list"),
        pytest.param(1.0, (1.0,), "the result: expected a tuple of 1 items, got 1.0", id="not-a-sequence"),
    ],
)
def test_a_sequence_of_the_wrong_length_is_refused(got: Any, expected: Any, text: str) -> None:
    assert message(expect_close, got, expected) == text


def test_a_list_is_accepted_for_a_tuple_by_expect_close() -> None:
    expect_close([1.0, torch.ones(1)], (1.0, torch.ones(1)))


# -------------------------------------------------------------------------------------------------- expect_equal


@pytest.mark.parametrize(
    "got, expected, text",
    [
        pytest.param((1, 2), [1, 2], "the result: expected [1, 2], got (1, 2). Use a list.", id="type"),
        pytest.param((1,), (1, 2), "the result: expected (1, 2), got (1,). Use a list.", id="length"),
        pytest.param((1, (2, 4)), (1, (2, 3)), "the result[1][1]: expected 3 (int), got 4 (int). Use a list.",
                     id="nested-item"),
        pytest.param(2, 3, "the result: expected 3 (int), got 2 (int). Use a list.", id="scalar"),
        pytest.param(torch.tensor([1, 2]), torch.tensor([1, 3]),
                     "the result: expected exactly equal values; 1 of 2 values differ (rtol=0, atol=0); "
                     "max abs error 1, max rel error 0.333; first at index [1]: expected 3, got 2. Use a list.",
                     id="tensor"),
    ],
)
def test_expect_equal_keeps_the_hint_on_every_kind_of_mismatch(got: Any, expected: Any, text: str) -> None:
    assert message(expect_equal, got, expected, hint="Use a list.") == text


def test_expect_equal_passes_equal_tuples_of_tensors() -> None:
    expect_equal((torch.ones(3), [torch.zeros(2)]), (torch.ones(3), [torch.zeros(2)]))


def test_expect_equal_attaches_the_call() -> None:
    result = CallResult(function="f", call="f()", value=(1,))
    for got, expected in [((1,), (1, 2)), ((1, 2), (1, 3)), (2, 3), (torch.ones(1), torch.zeros(1))]:
        assert failure(expect_equal, got, expected, call=result).call is result


def test_expect_equal_names_the_call_in_its_label() -> None:
    assert message(expect_equal, (1, 4), (1, 3), call="f(x=2)", what="the ids") == (
        "the ids[1] of f(x=2): expected 3 (int), got 4 (int)")


def test_expect_equal_checks_a_tensors_shape_and_dtype_first() -> None:
    assert message(expect_equal, torch.ones(2), torch.ones(3), what="the mask", call="f()") == (
        "the mask of f(): expected shape (3,), got (2,)")
    assert message(expect_equal, torch.ones(2, dtype=F64), torch.ones(2), what="the mask", call="f()") == (
        "the mask of f(): expected dtype torch.float32, got torch.float64")


# ------------------------------------------------------------------------------------------------- expect_tensor


def test_structural_failures_carry_the_call() -> None:
    result = CallResult(function="f", call="f()", value=None)
    cases: list[tuple[Any, dict[str, Any]]] = [
        (1, {}), (torch.ones(2), {"shape": (3,)}), (torch.ones(2), {"dtype": F64})]
    for got, kwargs in cases:
        assert failure(expect_tensor, got, call=result, **kwargs).call is result


@pytest.mark.parametrize(
    "got, kwargs",
    [
        pytest.param(torch.ones(2, 3), {"shape": [2, 3]}, id="shape-as-list"),
        pytest.param(torch.ones(2), {"dtype": torch.float32}, id="dtype"),
        pytest.param(torch.ones(2), {"device": "cpu"}, id="device"),
        pytest.param(torch.ones(2), {"requires_grad": False}, id="no-grad"),
    ],
)
def test_expect_tensor_passes_what_matches(got: torch.Tensor, kwargs: dict[str, Any]) -> None:
    assert expect_tensor(got, **kwargs) is got


# ---------------------------------------------------------------------------------------------- expect_raises


def picky(x: Any, *, strict: bool = False) -> float:
    if strict and isinstance(x, int):
        raise TypeError("an int")
    if x < 0:
        raise ValueError("negative")
    return float(x)


def test_expect_raises_passes_the_keyword_arguments_to_the_learners_function() -> None:
    function = Recording("picky", picky)
    assert expect_raises("TypeError", function, 3, strict=True).message == "an int"
    assert function.calls == [((3,), {"strict": True})]


@pytest.mark.parametrize(
    "names, wanted", [("TypeError", "TypeError"), (("KeyError", "IndexError"), "KeyError or IndexError")],
)
def test_expect_raises_names_what_it_wanted(names: Any, wanted: str) -> None:
    assert message(expect_raises, names, Recording("picky", picky), 2) == (
        f"picky(2): expected {wanted}, but it returned 2.0")


# --------------------------------------------------------------------------------------------- expect_rejected


def test_expect_rejected_passes_when_every_call_raises_a_named_type_in_one_round_trip() -> None:
    function = Recording("picky", picky)
    expect_rejected(("TypeError", "ValueError"), function, [((-1,), {}, "x < 0"), ((2,), {"strict": True}, "int")])
    assert function.batches == 1
    assert function.calls == [((-1,), {}), ((2,), {"strict": True})]


def test_expect_rejected_accepts_one_name_and_subclasses() -> None:
    expect_rejected("Exception", Recording("picky", picky), [((-1,), {}, "x < 0")])


@pytest.mark.parametrize(
    "names, calls, text",
    [
        pytest.param("ValueError", [((-1,), {}, "x < 0"), ((2,), {}, "2 is an int")],
                     "picky(2): expected ValueError because 2 is an int, but it returned 2.0", id="returned"),
        pytest.param(("KeyError", "IndexError"), [((-1,), {}, "x < 0")],
                     "picky(-1): expected KeyError or IndexError because x < 0, but it raised ValueError: negative",
                     id="wrong-type"),
        pytest.param("ValueError", [((1,), {"strict": True}, "strict"), ((2,), {}, "never reached")],
                     "picky(1, strict=True): expected ValueError because strict, but it raised TypeError: an int",
                     id="first-offender-named"),
    ],
)
def test_expect_rejected_names_the_first_call_that_was_not_rejected_and_why_it_should_have_been(
    names: Any, calls: list[tuple[tuple[Any, ...], dict[str, Any], str]], text: str
) -> None:
    assert message(expect_rejected, names, Recording("picky", picky), calls) == text


# ------------------------------------------------------------------------------------------------------ hint


def test_with_hint_keeps_the_call_and_the_bare_message() -> None:
    result = CallResult(function="f", call="f()", value=2.0)
    with pytest.raises(CheckFailed) as caught, hint("Halve it."):
        expect_close(2.0, 1.0, call=result)
    assert str(caught.value) == "the result of f(): expected 1, got 2. Halve it."
    assert caught.value.call is result
    assert caught.value.bare == "the result of f(): expected 1, got 2"


def test_a_hint_after_a_sentence_starts_a_new_one() -> None:
    with pytest.raises(CheckFailed) as caught, hint("Halve it."):
        raise CheckFailed("wrong.")
    assert str(caught.value) == "wrong. Halve it."


def test_a_passing_block_with_a_hint_says_nothing() -> None:
    with hint("Never shown."):
        expect_close(1.0, 1.0)


# ------------------------------------------------------------------------------- facts about one call's result


def outcome(**fields: Any) -> CallResult:
    return CallResult(function="f", call="f(x)", **fields)


@pytest.mark.parametrize(
    "helper, args, fields, text",
    [
        pytest.param(expect_unchanged, (), {"mutated": ("x",)},
                     "f(x) modified its argument(s) x in place; inputs must be left unchanged (work on a copy). Why.",
                     id="unchanged"),
        pytest.param(expect_no_alias, (), {"aliased": ("x", "y")},
                     "f(x) returned a tensor that shares storage with x, y; return new storage (e.g. .clone()), so "
                     "later edits of one cannot change the other. Why.", id="no-alias"),
        pytest.param(expect_grad_none, ("k",), {"grads": {"k": torch.ones(1)}},
                     "after backward() on f(x), k.grad should be None (no gradient may flow into k), but it is "
                     "float32[1] [1]. Why.", id="grad-none"),
        pytest.param(expect_grad_close, ("z", torch.ones(1)), {"grads": {"z": None}},
                     "after backward() on f(x), z.grad is None; the result must depend differentiably on z. Why.",
                     id="grad-missing"),
        pytest.param(expect_grad_close, ("z", torch.ones(1)), {"grads": {}, "backward_error": "not a scalar"},
                     "after f(x), no gradient could flow back to z: not a scalar. Why.", id="backward-failed"),
        pytest.param(expect_grad_close, ("z", torch.ones(1)), {"grads": {"z": torch.zeros(1)}},
                     "z.grad (compared with the reference) of f(x): expected 1, got 0 (rtol=1e-05, atol=1e-06). Why.",
                     id="grad-wrong"),
    ],
)
def test_fact_helpers_keep_the_hint(helper: Callable[..., None], args: tuple[Any, ...], fields: dict[str, Any],
                                    text: str) -> None:
    assert message(helper, outcome(**fields), *args, hint="Why.") == text


def test_expect_grad_none_checks_every_name() -> None:
    grads = {"a": None, "b": torch.ones(1)}
    expect_grad_none(outcome(grads=grads), "a")
    assert message(expect_grad_none, outcome(grads=grads), "a", "b").startswith("after backward() on f(x), b.grad")
    assert message(expect_grad_none, outcome(grads=grads), "a", "c") == "internal: gradient of 'c' was not requested"


def test_expect_grad_close_uses_the_authors_tolerances() -> None:
    expected = torch.ones(2, dtype=F64)
    expect_grad_close(outcome(grads={"z": expected * 1.001}), "z", expected, rtol=1e-2)
    assert "(rtol=0.01, atol=0.5)" in message(expect_grad_close, outcome(grads={"z": expected * 3}), "z", expected,
                                              rtol=0.01, atol=0.5)


@pytest.mark.parametrize("helper, args", [(expect_grad_none, ("k",)), (expect_grad_close, ("k", torch.ones(1)))])
def test_a_grad_helper_reports_the_learners_exception_not_the_missing_gradient(helper: Callable[..., None],
                                                                             args: tuple[Any, ...]) -> None:
    with pytest.raises(SubmissionRaised):
        helper(outcome(raised=info("ValueError")), *args)


# ---------------------------------------------------------------------------- expect_close: explaining mismatches


@pytest.mark.parametrize(
    "got, expected, text",
    [
        pytest.param([5e-9, 0.0], [0.0, 0.0],
                     "1 of 2 values differ (rtol=1e-07, atol=1e-09); max abs error 5e-09 (expected 0 at every such "
                     "value, so no relative error); first at index [0]: expected 0, got 5e-09", id="float64-atol"),
        pytest.param([0.2, 0.1], [0.1, 0.1],
                     "1 of 2 values differ (rtol=1e-07, atol=1e-09); max abs error 0.1, max rel error 1; "
                     "first at index [0]: expected 0.1, got 0.2", id="relative-to-a-small-value"),
        pytest.param([math.inf, math.nan], [0.0, 0.0],
                     "2 of 2 values differ (rtol=1e-07, atol=1e-09); 2 are nan or infinite; "
                     "first at index [0]: expected 0, got inf", id="infinity-and-nan-tie-for-worst"),
    ],
)
def test_a_float64_mismatch_is_explained(got: list[float], expected: list[float], text: str) -> None:
    assert message(expect_close, torch.tensor(got, dtype=F64), torch.tensor(expected, dtype=F64)) == (
        f"the result: {text}")


# ------------------------------------------------------------------------------------------- central_differences


@pytest.mark.parametrize("base", [torch.ones(2), 1.0, [1.0]], ids=["float32", "number", "list"])
def test_central_differences_wants_a_float64_tensor(base: Any) -> None:
    with pytest.raises(TypeError) as caught:
        central_differences(Recording("f", lambda x: x), (base,), 0)
    assert str(caught.value) == "central_differences needs a float64 tensor argument"


def test_central_differences_of_a_tensor_result_use_the_cotangent() -> None:
    x = torch.tensor([1.0, 2.0], dtype=F64)
    cotangent = torch.tensor([1.0, 3.0], dtype=F64)
    gradient = central_differences(Recording("f", lambda x: x**3), (x,), 0, grad_output=cotangent)
    torch.testing.assert_close(gradient, 3 * x**2 * cotangent, rtol=1e-6, atol=1e-6)


def test_central_differences_of_a_tuple_result_sum_over_its_parts() -> None:
    x = torch.tensor([1.0, 2.0], dtype=F64)
    cotangents = (torch.tensor([1.0, 1.0], dtype=F64), torch.tensor([2.0, 0.5], dtype=F64))
    gradient = central_differences(Recording("f", lambda x: (x * 2, x**3)), (x,), 0, grad_output=cotangents)
    torch.testing.assert_close(gradient, 2 * cotangents[0] + 3 * x**2 * cotangents[1], rtol=1e-6, atol=1e-6)


def test_central_differences_perturb_only_the_named_argument() -> None:
    y = torch.tensor([5.0], dtype=F64)
    gradient = central_differences(Recording("f", lambda a, b: (a**3 * b).sum()), (y, torch.tensor(2.0, dtype=F64)), 1)
    assert gradient.item() == pytest.approx(125.0, rel=1e-6)


@pytest.mark.parametrize(
    "implementation, grad_output, text",
    [
        pytest.param(lambda x: x * 2, (torch.ones(2, dtype=F64), torch.ones(2, dtype=F64)),
                     "expected 2 tensors to differentiate, got float64[2] [", id="one-tensor-for-two"),
        pytest.param(lambda x: (x, x), (torch.ones(2, dtype=F64),),
                     "expected 1 tensors to differentiate, got (float64[2] [", id="two-for-one"),
        pytest.param(lambda x: (x, x.sum()), (torch.ones(2, dtype=F64), torch.ones(2, dtype=F64)),
                     "the result[1] of f(", id="part-named"),
        pytest.param(lambda x: x.sum(), torch.ones(2, dtype=F64), "the result of f(", id="whole-named"),
    ],
)
def test_central_differences_say_which_part_does_not_fit_the_cotangent(
    implementation: Callable[..., Any], grad_output: Any, text: str
) -> None:
    assert text in message(central_differences, Recording("f", implementation), (torch.ones(2, dtype=F64),), 0,
                           grad_output=grad_output)


def test_a_fact_helper_without_a_hint_adds_nothing() -> None:
    assert message(expect_no_alias, outcome(aliased=("x",))) == (
        "f(x) returned a tensor that shares storage with x; return new storage (e.g. .clone()), so later edits of "
        "one cannot change the other")


def test_expect_rejected_never_passes_on_fewer_results_than_calls() -> None:
    """A judge that lost a result must not turn into a pass for the calls it lost."""

    class Lossy(Recording):
        def map(self, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]], *, grads: Sequence[str] = (),
                grad_outputs: Sequence[Any] | None = None, keep: bool = False) -> list[CallResult]:
            return super().map(calls, grads=grads, grad_outputs=grad_outputs)[:-1]

    with pytest.raises(ValueError, match="zip"):
        expect_rejected("ValueError", Lossy("picky", picky), [((-1,), {}, "x < 0"), ((2,), {}, "lost")])


def test_a_tensor_of_the_wrong_shape_is_named_by_what() -> None:
    assert message(expect_close, torch.ones(2), torch.ones(3), what="the loss") == (
        "the loss: expected shape (3,), got (2,)")


def test_tuple_items_have_their_dtype_checked_by_default() -> None:
    assert message(expect_close, (1.0, torch.ones(1, dtype=F64)), (1.0, torch.ones(1))) == (
        "the result[1]: expected dtype torch.float32, got torch.float64")


def test_expect_close_on_other_values_is_exact_equality_with_the_same_label_call_and_hint() -> None:
    result = CallResult(function="f", call="f()", value="a")
    caught = failure(expect_close, "a", "b", what="the name", call=result, hint="Spell it.")
    assert str(caught) == "the name of f(): expected 'b' (str), got 'a' (str). Spell it."
    assert caught.call is result
    expect_close(3, 3)



@pytest.mark.parametrize("value", [0.0, 1.0, -2.5, 1e300])
@pytest.mark.parametrize(("rtol", "atol"), [(math.inf, 0.0), (math.inf, 1.0), (0.0, 0.0)])
def test_equal_values_are_close_whatever_the_tolerance(value: float, rtol: float, atol: float) -> None:
    from grader.checks import _tensor_mismatch

    pair = torch.tensor([value, 5.0], dtype=F64), torch.tensor([value, 5.0], dtype=F64)
    assert _tensor_mismatch(*pair, rtol=rtol, atol=atol, equal_nan=False) == ""


def test_central_differences_of_a_result_that_is_not_a_scalar_name_the_call() -> None:
    caught = failure(central_differences, Recording("f", lambda x: x * 2), (torch.ones(2, dtype=F64),), 0)
    assert str(caught).startswith("the result of f(tensor([1.0000")
    assert str(caught).endswith("): expected shape (), got (2,)")
    assert caught.call is not None and caught.call.function == "f"


@pytest.mark.parametrize(
    "got, expected, rtol, atol",
    [
        pytest.param([0.5, 5.0], [0.0, 0.0], 0.0, 0.5, id="exactly-atol-away"),
        pytest.param([1.001, 5.0], [1.0, 0.0], 0.01, 0.0, id="within-rtol"),
    ],
)
def test_beside_a_mismatch_a_value_within_tolerance_is_not_counted(got: list[float], expected: list[float],
                                                                   rtol: float, atol: float) -> None:
    text = message(expect_close, torch.tensor(got, dtype=F64), torch.tensor(expected, dtype=F64), rtol=rtol, atol=atol)
    assert text.startswith("the result: 1 of 2 values differ") and "first at index [1]" in text


def test_central_differences_keep_their_precision_for_small_values() -> None:
    """The difference of two values near 1e-9 must not be taken after adding anything to them."""
    x = torch.tensor([1e-3], dtype=F64)
    scalar = central_differences(Recording("f", lambda x: (x**3).sum()), (x,), 0)
    projected = central_differences(Recording("f", lambda x: x**3), (x,), 0, grad_output=torch.ones(1, dtype=F64))
    # pytest.approx compares by its own __eq__, which strict_equality's overlap check cannot see
    assert (scalar.item(), projected.item()) == (  # type: ignore[comparison-overlap]
        pytest.approx(3e-6, rel=1e-6), pytest.approx(3e-6, rel=1e-6)
    )


# ------------------------------------------------------------------- the primitives problems used to re-implement


def test_central_differences_of_several_positions_come_in_one_round_trip() -> None:
    a, b = torch.tensor([1.0, 2.0], dtype=F64), torch.tensor([3.0], dtype=F64)
    function = Recording("f", lambda a, b: (a**2).sum() * b.sum())
    grad_a, grad_b = central_differences(function, (a, b), (0, 1))
    torch.testing.assert_close(grad_a, 2 * a * 3.0, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(grad_b, torch.tensor([5.0], dtype=F64), rtol=1e-6, atol=1e-6)
    assert function.batches == 1 and len(function.calls) == 2 * (2 + 1)


def test_central_differences_of_one_position_in_a_tuple_is_a_tuple_of_one() -> None:
    a = torch.tensor([2.0], dtype=F64)
    (grad,) = central_differences(Recording("f", lambda a: (a**3).sum()), (a,), (0,))
    assert grad.item() == pytest.approx(12.0, rel=1e-6)


def add_mul(x: torch.Tensor, y: torch.Tensor, scale: float = 2.0) -> tuple[torch.Tensor, torch.Tensor]:
    return x * y * scale, x + y


def test_reference_grads_are_vector_jacobian_products_in_each_arguments_dtype() -> None:
    x = torch.tensor([1.0, 2.0])
    y = torch.tensor([3.0, 4.0], dtype=F64)
    grads = reference_grads(add_mul, (x, y), ("x", "y"), kwargs={"scale": 0.5},
                            grad_output=(torch.tensor([1.0, 1.0]), torch.tensor([10.0, 0.0])))
    assert grads["x"] is not None and grads["y"] is not None
    assert grads["x"].dtype == torch.float32 and grads["y"].dtype == F64
    torch.testing.assert_close(grads["x"], torch.tensor([1.5 + 10.0, 2.0]))
    torch.testing.assert_close(grads["y"], torch.tensor([0.5 + 10.0, 1.0], dtype=F64))
    assert not x.requires_grad and x.grad is None  # the caller's tensors are untouched


def test_reference_grads_default_to_ones_and_name_an_unreached_argument_none() -> None:
    grads = reference_grads(lambda x, y: (x * 3).sum(), (torch.ones(2, dtype=F64), torch.ones(2, dtype=F64)),
                            ("x", "y"))
    torch.testing.assert_close(grads["x"], torch.full((2,), 3.0, dtype=F64))
    assert grads["y"] is None


def test_reference_grads_of_a_detached_result_are_none() -> None:
    grads = reference_grads(lambda x: x.detach() * 2, (torch.ones(2, dtype=F64),), ("x",))
    assert grads == {"x": None}


def test_reference_grads_refuse_an_argument_that_is_not_a_float_tensor() -> None:
    with pytest.raises(TypeError, match="reference_grads: n is not a float tensor argument of this call"):
        reference_grads(lambda x, n: x * n, (torch.ones(2, dtype=F64), 3), ("n",))


def test_seeded_tensors_repeat_in_every_call_and_differ_between_seeds() -> None:
    assert torch.equal(seeded_randn(3, 2, 4), seeded_randn(3, 2, 4))
    assert not torch.equal(seeded_randn(3, 2, 4), seeded_randn(4, 2, 4))
    assert seeded_randn(3, 2, dtype=torch.float32).dtype == torch.float32
    values = seeded_uniform(5, 1000, low=-2.0, high=-1.0)
    assert values.dtype == F64 and bool(((values >= -2.0) & (values < -1.0)).all())
    torch.testing.assert_close(seeded_uniform(5, 3, dtype=torch.float32),
                               seeded_uniform(5, 3).to(torch.float32))


@pytest.mark.parametrize(
    "error, noted",
    [
        pytest.param(3e-8, True, id="float32-sized"),
        pytest.param(1e-11, False, id="float64-sized"),
        pytest.param(1e-3, False, id="a wrong formula"),
    ],
)
def test_a_float32_sized_error_on_float64_values_is_named(error: float, noted: bool) -> None:
    expected = torch.tensor([1.0, 2.0], dtype=F64)
    text = message(expect_close, expected + error, expected, rtol=0.0, atol=0.0, hint="(the check's own hint)")
    assert ("the size of float32 rounding" in text) is noted
    assert ("(the check's own hint)" in text) is not noted  # the hint is about another mistake


@pytest.mark.parametrize(
    "got, expected",
    [
        pytest.param(torch.tensor([1.0]), torch.tensor([1.1]), id="float32"),
        pytest.param(torch.tensor([0.0, 1e-9], dtype=F64), torch.zeros(2, dtype=F64), id="nothing-to-scale-by"),
        pytest.param(torch.tensor([math.inf], dtype=F64), torch.tensor([1.0], dtype=F64), id="not-finite"),
        pytest.param(torch.zeros(0, dtype=F64), torch.zeros(0, dtype=F64), id="empty"),
        pytest.param(torch.ones(2, dtype=F64), torch.ones(3, dtype=F64), id="shapes-differ"),
    ],
)
def test_no_precision_note_where_it_cannot_be_judged(got: torch.Tensor, expected: torch.Tensor) -> None:
    assert precision_note(got, expected) == ""


def test_the_precision_note_measures_against_the_largest_expected_value() -> None:
    expected = torch.tensor([1e6, 1.0], dtype=F64)
    assert "at most 0.01" in precision_note(expected + torch.tensor([1e-2, 0.0], dtype=F64), expected)
    assert precision_note(expected + torch.tensor([0.0, 1e-2], dtype=F64), expected) != ""  # 1e-2 / 1e6 = 1e-8


def test_legal_inputs_register_one_function_per_contract() -> None:
    @legal_inputs("f")
    def make_legal(args: dict[str, Any], sizes: dict[str, int]) -> dict[str, Any]:
        return args

    module = types.ModuleType("checks")
    module.make_legal = make_legal  # type: ignore[attr-defined]
    module.other = lambda: None  # type: ignore[attr-defined]
    assert collect_legal_inputs(module) == {"f": make_legal}
    module.twin = legal_inputs("f")(lambda args, sizes: args)  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="two @legal_inputs functions for 'f'"):
        collect_legal_inputs(module)


@pytest.mark.parametrize(("file", "where"), [("/problems/p/checks.py", "/problems/p/checks.py"), (None, "checks")])
def test_two_legal_inputs_for_one_function_name_the_file_or_else_the_module(file: str | None, where: str) -> None:
    module = types.ModuleType("checks")
    if file is not None:
        module.__file__ = file
    module.one = legal_inputs("f")(lambda args, sizes: args)  # type: ignore[attr-defined]
    module.two = legal_inputs("f")(lambda args, sizes: args)  # type: ignore[attr-defined]
    with pytest.raises(ValueError) as caught:
        collect_legal_inputs(module)
    assert str(caught.value) == f"{where}: two @legal_inputs functions for 'f'"


def test_the_precision_note_says_what_to_change() -> None:
    expected = torch.tensor([1.0, 2.0], dtype=F64)
    assert precision_note(expected + 1e-7, expected) == (
        "The error, at most 1e-07, is the size of float32 rounding: on float64 inputs some step of your computation "
        "runs in float32 (a tensor made without dtype=, a .float(), torch.tensor of Python numbers); make every "
        "intermediate in the inputs' dtype.")


@pytest.mark.parametrize("error", [1e-10, 1e-5], ids=["floor", "ceiling"])
def test_the_precision_notes_band_includes_both_ends(error: float) -> None:
    expected = torch.tensor([1.0, 0.0], dtype=F64)  # the scale is exactly 1, so the error is exactly the bound
    assert precision_note(torch.tensor([1.0, error], dtype=F64), expected) != ""


@pytest.mark.parametrize(
    ("got", "expected"),
    [
        pytest.param(torch.tensor([1.0, 1e308], dtype=F64), torch.tensor([1.0, math.inf], dtype=F64),
                     id="expected-not-finite"),
        pytest.param(torch.tensor([1.0 + 1e-7]), torch.tensor([1.0], dtype=F64), id="got-float32"),
    ],
)
def test_no_precision_note_when_either_side_cannot_be_judged(got: torch.Tensor, expected: torch.Tensor) -> None:
    assert precision_note(got, expected) == ""


def test_central_differences_of_three_arguments_each_get_their_own_gradient() -> None:
    a, b = torch.tensor([1.0, 2.0], dtype=F64), torch.tensor([3.0], dtype=F64)
    c = torch.tensor([0.5, 4.0, 1.0], dtype=F64)
    ga, gb, gc = central_differences(Recording("f", lambda a, b, c: (a * 2).sum() + (b * 3).sum() + (c * c).sum()),
                                     (a, b, c), (0, 1, 2))
    assert torch.allclose(ga, torch.full((2,), 2.0, dtype=F64))
    assert torch.allclose(gb, torch.full((1,), 3.0, dtype=F64))
    assert torch.allclose(gc, 2 * c)


def test_reference_gradients_are_computed_in_float64_and_returned_in_the_arguments_dtype() -> None:
    seen: list[torch.dtype] = []

    def f(x: torch.Tensor) -> torch.Tensor:
        seen.append(x.dtype)
        return (x * 2).sum()

    grads = reference_grads(f, (torch.ones(3),), ["x"])
    assert seen == [F64]
    x_grad = grads["x"]
    assert x_grad is not None and x_grad.dtype == torch.float32 and torch.equal(x_grad, torch.full((3,), 2.0))


def test_reference_gradients_name_every_argument_that_is_not_a_float_tensor() -> None:
    with pytest.raises(TypeError) as caught:
        reference_grads(lambda x, n, k: x.sum(), (torch.ones(2), 3, torch.ones(2, dtype=torch.int64)), ["n", "k"])
    assert str(caught.value) == "reference_grads: n, k is not a float tensor argument of this call"


def test_a_single_tensor_cotangent_is_the_one_results_whole_cotangent() -> None:
    grads = reference_grads(lambda x: x * 3, (torch.ones(2, dtype=F64),), ["x"],
                            grad_output=torch.tensor([1.0, 2.0], dtype=F64))
    assert torch.equal(grads["x"], torch.tensor([3.0, 6.0], dtype=F64))  # type: ignore[arg-type]


def test_a_cotangent_tuple_must_have_one_part_per_tensor_result() -> None:
    with pytest.raises(ValueError) as caught:
        reference_grads(lambda x: (x * 2, x * 3), (torch.ones(2, dtype=F64),), ["x"],
                        grad_output=(torch.ones(2, dtype=F64),))
    assert str(caught.value) == "reference_grads: 1 cotangents for 2 tensor results"


@pytest.mark.parametrize("draw", [seeded_randn, seeded_uniform])
def test_seeded_draws_are_made_in_float64(draw: Callable[..., torch.Tensor]) -> None:
    values = draw(3, 64, dtype=F64)
    assert not torch.equal(values, values.float().double()), "a float32 draw widened has float32's precision"


def test_seeded_uniform_draws_from_zero_to_one_by_default() -> None:
    values = seeded_uniform(5, 1000, dtype=F64)
    assert 0.0 <= float(values.min()) < 0.05 and 0.95 < float(values.max()) < 1.0


def test_a_cotangent_is_taken_in_its_results_dtype() -> None:
    # The result is float32 although the reference ran on float64 copies: 1 + 1e-10 is 1 in float32, as the
    # learner's own backward receives it.
    grads = reference_grads(lambda x: x.float() * 3, (torch.ones(1, dtype=F64),), ["x"],
                            grad_output=torch.tensor([1.0 + 1e-10], dtype=F64))
    assert torch.equal(grads["x"], torch.tensor([3.0], dtype=F64))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------- same_bits: a replayed answer

F = torch.tensor([1.0, -2.5, 0.0], dtype=torch.float64)


@pytest.mark.parametrize(("got", "expected", "same"), [
    pytest.param(F.clone(), F, True, id="equal-values-in-new-storage"),
    pytest.param(torch.tensor([1.0, -2.5, 5e-324], dtype=torch.float64), F, False, id="one-ulp-away"),
    pytest.param(torch.tensor([1.0, -2.5, -0.0], dtype=torch.float64), F, False, id="minus-zero"),
    pytest.param(F.clone(), torch.tensor([1.0, -2.5, -0.0], dtype=torch.float64), False, id="plus-zero-for-minus"),
    pytest.param(F.float(), F, False, id="another-dtype"),
    pytest.param(F.reshape(1, 3), F, False, id="another-shape"),
    pytest.param(torch.nn.Parameter(F.clone()), F, False, id="a-parameter-for-a-tensor"),
    pytest.param(F.tolist(), F, False, id="a-list-for-a-tensor"),
    pytest.param(torch.tensor([math.nan]), torch.tensor([math.nan]), False, id="nan-is-never-the-same"),
    pytest.param(torch.tensor([3, 4]), torch.tensor([3, 4]), True, id="integers"),
    pytest.param(torch.tensor([3, 4]), torch.tensor([3, 5]), False, id="integers-that-differ"),
    pytest.param(torch.tensor([True]), torch.tensor([True]), True, id="bools"),
    pytest.param(torch.zeros(0, 2), torch.zeros(0, 2), True, id="empty"),
    pytest.param(3, 3, True, id="an-int"),
    pytest.param(3.0, 3, False, id="a-float-for-an-int"),
    pytest.param(True, 1, False, id="a-bool-for-an-int"),
    pytest.param(4, 3, False, id="another-int"),
    pytest.param(None, None, True, id="none"),
    pytest.param(F, None, False, id="a-tensor-for-none"),
    pytest.param(None, F, False, id="none-for-a-tensor"),
    pytest.param((F.clone(), 3), (F, 3), True, id="a-tuple-item-by-item"),
    pytest.param([F.clone(), [2, None]], [F, [2, None]], True, id="nested-lists"),
    pytest.param((F.clone(), torch.tensor([-0.0])), (F, torch.tensor([0.0])), False, id="a-tuple-one-item-off"),
    pytest.param([F.clone(), 3], (F, 3), False, id="a-list-for-a-tuple"),
    pytest.param((F.clone(),), (F, 3), False, id="a-shorter-tuple"),
    pytest.param((F.clone(), 3, 4), (F, 3), False, id="a-longer-tuple"),
    pytest.param((1, True), (1, 1), False, id="a-bool-item-for-an-int"),
    pytest.param(F.clone(), (F,), False, id="a-tensor-for-a-tuple"),
])
def test_same_bits_is_the_same_value_to_the_last_bit(got: Any, expected: Any, same: bool) -> None:
    assert same_bits(got, expected) is same


# ------------------------------------------------------------------------------ replay_agrees: a run's calls again


class Replaying:
    """A SubmissionFunction whose one request answers from a table of (value, grads, raised), and that records the
    requests it was asked for."""

    def __init__(self, answers: list[tuple[Any, dict[str, Any], ExceptionInfo | None]]) -> None:
        self.answers = answers
        self.requests: list[tuple[list[tuple[tuple[Any, ...], dict[str, Any]]], tuple[str, ...]]] = []

    def map(self, calls: Iterable[tuple[tuple[Any, ...], dict[str, Any]]], *, grads: Sequence[str] = (),
            grad_outputs: Sequence[Any] | None = None, keep: bool = False) -> list[CallResult]:
        self.requests.append((list(calls), tuple(grads)))
        return [CallResult(function="f", call="f(...)", value=value, grads=dict(gradients), raised=raised)
                for value, gradients, raised in self.answers]


G = torch.tensor([0.5, -0.0], dtype=torch.float64)
ARGS = ((torch.ones(2),), {"scale": 2.0})


def test_replay_agrees_sends_every_call_in_one_request_with_the_gradients_named() -> None:
    function = Replaying([(F.clone(), {"x": G.clone()}, None), (F.clone(), {"x": G.clone()}, None)])
    assert replay_agrees(function, [(ARGS, (F, G)), (((), {}), (F, G))], grads=("x",))  # type: ignore[arg-type]
    assert function.requests == [([ARGS, ((), {})], ("x",))]


@pytest.mark.parametrize(("answers", "made", "grads", "agrees"), [
    pytest.param([(F.clone(), {}, None)], [(ARGS, F)], (), True, id="a-value"),
    pytest.param([((F.clone(), 3), {}, None)], [(ARGS, (F, 3))], (), True, id="a-tuple-value"),
    pytest.param([(F.clone(), {}, info("ValueError"))], [(ARGS, F)], (), False, id="it-raised"),
    pytest.param([(F.float(), {}, None)], [(ARGS, F)], (), False, id="another-value"),
    pytest.param([(F.clone(), {}, None), (G.clone(), {}, None)], [(ARGS, F), (ARGS, F)], (), False,
                 id="the-second-answer-differs"),
    pytest.param([(F.clone(), {"x": G.clone(), "y": F.clone()}, None)], [(ARGS, (F, G, F))], ("x", "y"), True,
                 id="two-gradients"),
    pytest.param([(F.clone(), {"x": G.clone(), "y": G.clone()}, None)], [(ARGS, (F, G, F))], ("x", "y"), False,
                 id="the-second-gradient-differs"),
    pytest.param([(F.clone(), {"x": torch.tensor([0.5, 0.0], dtype=torch.float64)}, None)], [(ARGS, (F, G))],
                 ("x",), False, id="a-gradient-off-by-the-sign-of-zero"),
    pytest.param([(F.clone(), {}, None)], [(ARGS, (F, G))], ("x",), False, id="no-gradient-came-back"),
    pytest.param([(F.clone(), {"x": G.clone()}, None)], [(ARGS, (F,))], ("x",), False, id="the-run-lacks-one"),
    pytest.param([(F.clone(), {"x": G.clone()}, None)], [(ARGS, F)], ("x",), False, id="the-run-gave-a-bare-value"),
    pytest.param([(F.clone(), {"x": G.clone()}, None)], [(ARGS, (F, G, G))], ("x",), False,
                 id="the-run-has-one-too-many"),
    pytest.param([(G.clone(), {"x": G.clone()}, None)], [(ARGS, (F, G))], ("x",), False,
                 id="the-value-differs-with-gradients"),
])
def test_replay_agrees_only_when_every_answer_is_the_runs_to_the_bit(
        answers: list[tuple[Any, dict[str, Any], ExceptionInfo | None]], made: list[Any], grads: tuple[str, ...],
        agrees: bool) -> None:
    assert replay_agrees(Replaying(answers), made, grads=grads) is agrees  # type: ignore[arg-type]


def test_replay_agrees_refuses_a_replay_that_answers_fewer_calls_than_it_was_asked() -> None:
    with pytest.raises(ValueError, match="zip"):
        replay_agrees(Replaying([(F.clone(), {}, None)]), [(ARGS, F), (ARGS, F)])  # type: ignore[arg-type]
