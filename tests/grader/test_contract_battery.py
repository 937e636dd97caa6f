"""The generic battery, specified on a fixture problem whose whole contract is declared (tests/fixtures/problems/
blend): the reference passes every generic check, and a solution with one generic bug fails the generic check
that owns that property, with a message that names it. Graded in this process (bench.inprocess), so no sandbox:
the facts (inputs changed, storage shared, gradients) come from the worker's own call-serving code all the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.inprocess import InProcessPool
from grader.judge import grade
from grader.problems import Problem, load_problem
from grader.report import Report

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "problems" / "blend"


@pytest.fixture(scope="module")
def problem() -> Problem:
    return load_problem(FIXTURE)


def graded(problem: Problem, patch: str = "") -> Report:
    code = problem.reference_source() + "\n\n" + patch
    return grade(problem, code, pool=InProcessPool())  # type: ignore[arg-type]


def failed(report: Report) -> dict[str, str]:
    return {c.id: c.message for c in report.checks if c.status != "passed"}


GENERIC = ["contract.mix.values", "contract.mix.edges", "contract.mix.dtypes", "contract.mix.layouts",
           "contract.mix.autograd", "contract.mix.finite_differences", "contract.mix.refusals",
           "contract.mix.same_tensor", "contract.ring.values", "contract.ring.edges", "contract.ring.dtypes",
           "contract.ring.layouts", "contract.ring.autograd", "contract.ring.refusals", "contract.ring.same_tensor",
           "contract.search"]


def test_the_generic_checks_are_added_after_the_hand_ones(problem: Problem) -> None:
    assert [c.id for c in problem.checks] == ["mix.hand", *GENERIC]


def test_every_generic_check_is_required_and_names_its_clauses(problem: Problem) -> None:
    generic = [c for c in problem.checks if c.id.startswith("contract.")]
    assert all(c.required and c.group == "contract" and c.clauses for c in generic)
    stated = {c.id for c in problem.generated_clauses}
    assert {clause for c in generic for clause in c.clauses} == stated


def test_the_reference_passes_every_generic_check(problem: Problem) -> None:
    report = graded(problem)
    assert failed(report) == {}
    assert report.solved


def test_two_gradings_give_identical_verdicts(problem: Problem) -> None:
    patch = "def mix(x, y, weight=0.5):\n    return (1 - weight) * x + weight * y + (x.abs() > 3.5) * 0.01\n"
    first, second = graded(problem, patch), graded(problem, patch)
    assert [(c.id, c.status, c.message) for c in first.checks] == [(c.id, c.status, c.message) for c in second.checks]


MIX = "_reference_mix = mix\n\n\ndef mix(x, y, weight=0.5):\n"


@pytest.mark.parametrize(
    "patch, check_id, words",
    [
        pytest.param(MIX + "    out = _reference_mix(x, y, weight)\n    return out.view(-1).view(out.shape)\n",
                     "contract.mix.layouts", ["in contiguous memory give the right result", ".reshape()"],
                     id="a view that needs contiguous memory"),
        pytest.param(MIX + "    return x if weight == 0 else _reference_mix(x, y, weight)\n",
                     "contract.mix.edges", ["returned x itself", "weight = 0.0"],
                     id="an input returned on an edge path"),
        pytest.param(MIX + "    if weight == 1:\n        return y.detach().clone()\n"
                           "    return _reference_mix(x, y, weight)\n",
                     "contract.mix.edges", ["does not require grad", "weight = 1.0"],
                     id="requires_grad dropped on an edge path"),
        pytest.param(MIX + "    import torch\n    return (1 - torch.tensor(weight)) * x + weight * y\n",
                     "contract.mix.values", ["the size of float32 rounding"],
                     id="a float32 constant in float64 maths"),
        pytest.param(MIX + "    import torch\n    out = _reference_mix(x, y, weight)\n    with torch.no_grad():\n"
                           "        x.mul_(2.0)\n        x.mul_(0.5)\n    return out\n",
                     "contract.mix.values", ["changed x"], id="an input written in place"),
        pytest.param(MIX + "    out = _reference_mix(x, y, weight)\n    y.requires_grad_(False)\n    return out\n",
                     "contract.mix.values", ["changed y"], id="requires_grad turned off on an input"),
        pytest.param(MIX + "    return (1 - weight) * x + weight * y.detach()\n",
                     "contract.mix.autograd", ["y.grad"], id="a detached argument"),
        pytest.param(MIX + "    if x is y:\n        return 2 * x\n    return _reference_mix(x, y, weight)\n",
                     "contract.mix.same_tensor", ["x and y are one tensor"], id="one tensor passed twice"),
        pytest.param(MIX + "    if x is y:\n        return x.detach().clone()\n"
                           "    return _reference_mix(x, y, weight)\n",
                     "contract.mix.same_tensor", ["does not require grad", "x and y are one tensor"],
                     id="a shortcut for one tensor passed twice drops requires_grad"),
        pytest.param(MIX + "    if x is y:\n        return (1 - weight) * x + weight * y.detach()\n"
                           "    return _reference_mix(x, y, weight)\n",
                     "contract.mix.same_tensor", ["x.grad", "two copies, their gradients summed"],
                     id="one tensor passed twice loses the gradient of one use"),
        pytest.param(MIX + "    if hasattr(x, 'dtype') and hasattr(y, 'dtype') and x.dtype != y.dtype:\n"
                           "        y = y.to(x.dtype)\n    return _reference_mix(x, y, weight)\n",
                     "contract.mix.refusals", ["expected TypeError because", "float32"], id="mixed dtypes accepted"),
        pytest.param("_reference_ring = ring\n\n\ndef ring(queue, keys, pointer):\n"
                     "    return list(_reference_ring(queue, keys, pointer))\n",
                     "contract.ring.values", ["is a list", "the contract says a tuple of 2"],
                     id="a list where a tuple is due"),
    ],
)
def test_a_generic_bug_fails_the_check_that_owns_it(problem: Problem, patch: str, check_id: str,
                                                    words: list[str]) -> None:
    report = graded(problem, patch)
    failures = failed(report)
    assert check_id in failures, failures
    assert all(word in failures[check_id] for word in words), failures[check_id]
    assert not report.solved


def test_the_search_prints_the_smallest_failing_input_in_full(problem: Problem) -> None:
    patch = MIX + "    return _reference_mix(x, y, weight) + (x.abs() > 3.5) * 0.01\n"
    message = failed(graded(problem, patch))["contract.search"]
    assert "the property search tried" in message
    assert "That input, in full: x=torch.tensor(" in message


def test_the_search_shrinks_to_an_input_that_fails_as_most_drawn_inputs_do(problem: Problem) -> None:
    # Wrong by 0.01 wherever |x| > 3.5, and also nan at weight = 0: the shrinker, free to pick any failure, would
    # move weight to 0 (its simplest value) and report a nan that says nothing of the mistake most inputs show.
    patch = MIX + ("    if weight == 0:\n        return x * float('nan')\n"
                   "    return _reference_mix(x, y, weight) + (x.abs() > 3.5) * 0.01\n")
    message = failed(graded(problem, patch))["contract.search"]
    found, _, shown = message.partition("That input, in full: ")
    assert "nan" not in found, message
    assert "weight=0.0" not in shown and "weight=0," not in shown, message


def test_a_list_that_may_be_a_tuple_is_tried_as_one() -> None:
    from grader.contract.battery import FunctionBattery
    from grader.contract.schema import FunctionContract

    declared = FunctionContract.model_validate({
        "dims": {"V": {"min": 2}, "N": {}},
        "args": {"views": {"kind": "tensor_list", "length": "V", "tuples": True,
                           "item": {"kind": "tensor", "shape": ["N"]}}},
        "result": {"kind": "tensor", "shape": ["N"]},
    })
    battery = FunctionBattery("views", "mean_view", declared, None, {})
    tried = {case.label: case.args["views"] for case in battery.edge_cases}
    assert type(tried["views as a tuple"]) is tuple
    assert all(item.requires_grad for item in tried["views as a tuple"])
    only_lists = FunctionContract.model_validate({**declared.model_dump(), "args": {"views": {
        **declared.model_dump()["args"]["views"], "tuples": False}}})
    assert "views as a tuple" not in {case.label for case in FunctionBattery("views", "mean_view", only_lists, None,
                                                                               {}).edge_cases}


SCAN: dict[str, Any] = {  # a scan's shape of contract: an optional initial state, and a length that may be 0
    "dims": {"L": {"min": 0}, "D": {}},
    "args": {"x": {"kind": "tensor", "shape": ["L", "D"]},
             "h0": {"kind": "tensor", "shape": ["D"], "optional": True}},
    "result": {"kind": "tensor", "shape": ["D"]},
}


def test_an_optional_argument_is_left_out_at_every_empty_size_too() -> None:
    from grader.contract.battery import FunctionBattery
    from grader.contract.schema import FunctionContract

    battery = FunctionBattery("scan", "scan", FunctionContract.model_validate(SCAN), None, {})
    tried = {case.label: case.args for case in battery.edge_cases}
    assert tried["h0 = None"]["h0"] is None and tried["h0 = None"]["x"].shape[0] > 0
    assert tried["L = 0; h0 = None"]["h0"] is None and tried["L = 0; h0 = None"]["x"].shape[0] == 0
    assert tried["L = 0"]["h0"] is not None  # the empty size with the argument given stays as it was
    assert not any("= 1; h0 = None" in label for label in tried)  # only the empty sizes are crossed


def test_a_function_without_optional_arguments_gets_no_such_edge() -> None:
    from grader.contract.battery import FunctionBattery
    from grader.contract.schema import FunctionContract

    required = {**SCAN, "args": {**SCAN["args"], "h0": {"kind": "tensor", "shape": ["D"]}}}
    battery = FunctionBattery("scan", "scan", FunctionContract.model_validate(required), None, {})
    assert not any("None" in case.label for case in battery.edge_cases)


GROUPED = {  # GroupNorm's shape of contract: an int gives a size that another size must be a multiple of
    "dims": {"N": {"min": 0}, "C": {"min": 1, "multiple_of": "G"}, "G": {"min": 1}},
    "args": {"x": {"kind": "tensor", "shape": ["N", "C"]}, "groups": {"kind": "int", "size": "G"}},
    "result": {"kind": "tensor", "shape": ["N", "C"]},
}


@pytest.mark.parametrize("value, kind", [(True, "bool"), (2.0, "float"), ("2", "str"), (None, "None")])
def test_an_int_size_of_the_wrong_kind_breaks_the_kind_rule_alone(value: object, kind: str) -> None:
    # The size it should give is unknown, so the multiple it constrains cannot be judged: before, the call broke a
    # spurious shape rule too, and the battery dropped it (two rules, two exceptions), so a solution that took
    # groups=True went unrefused.
    import torch

    from grader.contract.legality import violations
    from grader.contract.schema import FunctionContract

    declared = FunctionContract.model_validate(GROUPED)
    broken = violations(declared, {"x": torch.zeros(3, 4, dtype=torch.float64), "groups": value})
    assert list(broken) == ["kind"] and kind in broken["kind"]
    assert violations(declared, {"x": torch.zeros(3, 4, dtype=torch.float64), "groups": 3}) == {
        "shape": "C = 4 is not a legal size"}


def test_the_refusals_try_an_int_size_of_every_wrong_kind() -> None:
    from grader.contract.battery import FunctionBattery
    from grader.contract.schema import FunctionContract

    battery = FunctionBattery("grouped", "group", FunctionContract.model_validate(GROUPED), None, {})
    refused = {case.reason.split(",")[0]: case.exception for case in battery.refusal_cases}
    for words in ("groups is a bool", "groups is a str", "groups is a Tensor", "groups is a float"):
        assert refused.get(words) == "TypeError", (words, refused)


def test_the_refusals_try_nan_and_both_infinities_and_both_ends_of_a_range() -> None:
    # Each pair shares its reason ("holds nan or infinity", "holds values outside"); a check for nan alone, or for
    # the low end alone, must still be caught.
    import torch

    from grader.contract.battery import FunctionBattery
    from grader.contract.schema import FunctionContract

    declared = FunctionContract.model_validate({
        "dims": {"N": {"min": 1}},
        "args": {"p": {"kind": "tensor", "shape": ["N"], "range": "[0, 1]"}},
        "result": {"kind": "tensor", "shape": ["N"]},
    })
    refused = FunctionBattery("probabilities", "clip", declared, None, {}).refusal_cases
    spoiled = [case.args["p"] for case in refused if case.rule in ("finite", "range")]
    values = {float(value) for p in spoiled if isinstance(p, torch.Tensor) for value in p.tolist()
              if not 0 <= value <= 1}
    assert {float("inf"), float("-inf")} <= values and any(v < 0 for v in values if v != float("-inf"))
    assert any(v > 1 for v in values if v != float("inf"))
    assert sum(1 for p in spoiled if bool(torch.isnan(p).any())) == 1


SPREAD = Path(__file__).resolve().parent.parent / "fixtures" / "problems" / "spread"


def test_a_float_result_of_float32_tensors_is_held_to_float32s_tolerance_and_takes_no_gradient() -> None:
    # spread(x), the mean absolute deviation, computed in float32 and read with float() carries float32's rounding,
    # which float64's tolerance rejected; and its detached argument's autograd cases (a transposed incoming gradient
    # among them) have no tensor result for a gradient to flow into, which once crashed the battery.
    problem = load_problem(SPREAD)
    another_way = (  # the same quantity, rounded differently from the reference in float32
        "\n\n_validated = spread\n\n\ndef spread(x):\n    _validated(x)\n    x = x.detach()\n"
        "    return float(((x - x.mean()) * 0.5).abs().sum() * (2.0 / x.shape[0]))\n")
    for patch in ("", another_way):
        report = graded(problem, patch)
        assert failed(report) == {}
        assert {"contract.spread.values", "contract.spread.dtypes", "contract.spread.autograd"} <= {
            check.id for check in report.checks}


def test_a_float_result_far_off_still_fails_at_float32s_tolerance() -> None:
    problem = load_problem(SPREAD)
    off = "\n\n_exact = spread\n\n\ndef spread(x):\n    return _exact(x) * (1 + 1e-3)\n"
    assert "contract.spread.values" in failed(graded(problem, off))


FLOORED = {  # lr_at's shape of contract: a default that matters only once an int argument is past the draws' range
    "args": {"step": {"kind": "int", "range": "[0, 5]"}, "floor": {"kind": "float", "range": "[0, inf)"}},
    "result": {"kind": "float"},
}


def floored(step: int, floor: float = 0.0) -> float:
    return 1.0 if step < 5 else floor


def floored_battery(reference: Any) -> Any:
    from grader.contract.battery import FunctionBattery
    from grader.contract.schema import FunctionContract

    return FunctionBattery("floored", "floored", FunctionContract.model_validate(FLOORED), None, {"floor": 0.0},
                           reference=reference)


def test_a_default_is_left_out_where_the_reference_shows_it() -> None:
    battery = floored_battery(floored)
    assert battery.draw(battery.base, "edge-defaults")["step"] < 5  # the first draw alone would hide a wrong floor
    left_out = [case for case in battery.edge_cases if case.omit == ("floor",)]
    assert [case.args["step"] >= 5 for case in left_out] == [False, True]
    assert {case.label for case in left_out} == {"floor left at its default"}


def test_without_the_reference_a_default_is_left_out_on_the_first_draw_only() -> None:
    left_out = [case for case in floored_battery(None).edge_cases if case.omit]
    assert len(left_out) == 1 and left_out[0].args["step"] < 5


def test_a_default_no_input_shows_is_left_out_once() -> None:
    left_out = [case for case in floored_battery(lambda step, floor=0.0: 1.0).edge_cases if case.omit]
    assert len(left_out) == 1


def test_a_reference_that_refuses_the_other_values_shows_nothing() -> None:
    def refuses(step: int, floor: float = 0.0) -> float:
        if floor != 0.0:
            raise ValueError("only the default")
        return floored(step, floor)

    assert len([case for case in floored_battery(refuses).edge_cases if case.omit]) == 1


def test_every_edge_is_differentiated_too() -> None:
    from grader.contract.battery import FunctionBattery
    from grader.contract.schema import FunctionContract

    scaled = {
        "dims": {"*B": {"min": 0, "max_rank": 2}, "N": {"min": 0}, "D": {}},
        "args": {"x": {"kind": "tensor", "shape": ["*B", "N", "D"]}, "w": {"kind": "tensor", "shape": ["D"]},
                 "p": {"kind": "float", "range": "[0, 1]"}},
        "result": {"kind": "tensor", "shape": ["*B", "N", "D"]},
    }
    battery = FunctionBattery("scaled", "scaled", FunctionContract.model_validate(scaled), None, {})
    given = [case.label for case in battery.edge_cases
             if not case.omit and all(case.args.get(name) is not None for name in battery.grad_names)]
    assert len(given) > 7  # more than the first seven, which were all that were differentiated
    differentiated = [case.label for case in battery.autograd_cases]
    assert [label for label in differentiated if label in given] == given
