"""The contract schema (grader.contract.schema), sizes and legality, specified: what problem.toml may declare,
the error an impossible declaration gets, the sizes the battery tries, and which rules a call breaks."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from pydantic import ValidationError

from grader.contract.legality import violations
from grader.contract.schema import ContractError, FunctionContract, TensorArg, parse_interval
from grader.contract.sizes import Sizes, distinct, edges, variations


def contract(**fields: Any) -> FunctionContract:
    return FunctionContract.model_validate(fields)


ATTENTION = {
    "dims": {"*B": {"max_rank": 2}, "Lq": {"min": 0}, "Lk": {"min": 0}, "D": {}, "Dv": {"min": 0}},
    "args": {"q": {"kind": "tensor", "shape": ["*B", "Lq", "D"]},
             "k": {"kind": "tensor", "shape": ["*B", "Lk", "D"]},
             "v": {"kind": "tensor", "shape": ["*B", "Lk", "Dv"]},
             "mask": {"kind": "tensor", "shape": ["*B", "Lq", "Lk"], "dtypes": ["bool"], "optional": True,
                      "broadcast": True}},
    "result": {"kind": "tensor", "shape": ["*B", "Lq", "Dv"], "dtype": "q"},
}


# ---------------------------------------------------------------------------------------------- declarations


@pytest.mark.parametrize(
    "change, words",
    [
        pytest.param({"args": {"x": {"kind": "tensor", "shape": ["N"]}}}, "uses N, which [functions.dims] does not "
                     "declare", id="undeclared-symbol"),
        pytest.param({"args": {"x": {"kind": "tensor", "shape": ["*A", "*B"]}}}, "at most one variadic run",
                     id="two-runs"),
        pytest.param({"args": {"x": {"kind": "tensor", "shape": [], "dtypes": ["int64"]}}}, "needs a range",
                     id="int-tensor-without-range"),
        pytest.param({"args": {"x": {"kind": "tensor", "shape": [], "dtypes": ["int64", "float32"]}}},
                     "mix floating and other", id="mixed-kinds-of-dtype"),
        pytest.param({"args": {"x": {"kind": "tensor", "shape": [], "dtypes": ["int64"], "range": "[0, 3)",
                                     "grad": "differentiable"}}}, "only a float tensor can be differentiable",
                     id="differentiable-int"),
        pytest.param({"args": {"t": {"kind": "float", "range": "[0, inf]"}}}, "an infinite end is open",
                     id="closed-infinity"),
        pytest.param({"args": {"t": {"kind": "float", "range": "(1, 1)"}}}, "is empty", id="empty-interval"),
        pytest.param({"args": {"t": {"kind": "int"}}}, "exactly one of range", id="int-without-range"),
        pytest.param({"result": {"kind": "tensor", "shape": [], "dtype": "nothing"}}, "neither 'float', a dtype "
                     "nor an argument", id="unknown-result-dtype"),
        pytest.param({"result": {"kind": "tensor", "shape": [], "requires_grad": ["z"]}}, "unknown arguments",
                     id="unknown-requires-grad-argument"),
        pytest.param({"result": {"kind": "tensor_list", "like": "x"}}, "must name a tensor_list argument",
                     id="like-not-a-list"),
        pytest.param({"dims": {"D": {"multiple_of": "G"}}}, "multiple_of names G", id="unknown-multiple-of"),
        pytest.param({"dims": {"d-1": {}}}, "is not a symbol", id="bad-symbol"),
        pytest.param({"args": {"x": {"kind": "tensor", "shape": ["D ** 2"]}}}, "may use only", id="power"),
        pytest.param({"args": {"x": {"kind": "tensor", "shape": [], "color": "red"}}}, "Extra inputs",
                     id="unknown-key"),
    ],
)
def test_an_impossible_declaration_is_refused_with_its_reason(change: dict[str, Any], words: str) -> None:
    fields: dict[str, Any] = {"dims": {}, "args": {"x": {"kind": "tensor", "shape": []}},
                              "result": {"kind": "float"}}
    fields.update(change)
    with pytest.raises((ValidationError, ContractError), match=None) as caught:
        contract(**fields)
    assert words in str(caught.value)


def test_defaults_follow_the_argument_kind() -> None:
    declared = contract(**ATTENTION)
    q, mask = declared.args["q"], declared.args["mask"]
    assert isinstance(q, TensorArg) and isinstance(mask, TensorArg)
    assert (q.dtypes, q.grad_rule, q.must_be_finite, q.group, q.views) == (
        ["float32", "float64"], "differentiable", True, "float", True)
    assert (mask.grad_rule, mask.group, mask.must_be_finite) == ("none", "bool", False)
    assert declared.error_for("dtype") == "TypeError" and declared.error_for("shape") == "ValueError"


@pytest.mark.parametrize(
    "text, inside, outside",
    [
        ("[0, 1]", [0.0, 1.0, 0.5], [-1e-9, 1.000001]),
        ("(0, inf)", [1e-300, 1e300], [0.0, -1.0]),
        ("[0, K)", [0.0, 2.0], [3.0, -1.0]),
        ("(-inf, 0]", [-5.0, 0.0], [1e-12]),
    ],
)
def test_an_interval_holds_exactly_its_values(text: str, inside: list[float], outside: list[float]) -> None:
    interval = parse_interval(text)
    assert all(interval.contains(x, {"K": 3}) for x in inside)
    assert not any(interval.contains(x, {"K": 3}) for x in outside)


# ---------------------------------------------------------------------------------------------------- sizes


def test_the_first_assignment_gives_every_symbol_a_size_of_its_own() -> None:
    sizes = distinct(contract(**ATTENTION))
    values = [*sizes.dims.values(), *sizes.runs["*B"]]
    assert len(set(values)) == len(values) and all(v >= 2 for v in values)


def test_each_pair_of_symbols_is_made_equal_once() -> None:
    declared = contract(**ATTENTION)
    tried = variations(declared)
    for a, b in [("Lq", "Lk"), ("D", "Dv"), ("Lq", "Dv")]:
        assert any(s.dims[a] == s.dims[b] for s in tried[1:]), (a, b)
    assert len({(tuple(s.dims.items()), tuple(s.runs.items())) for s in tried}) == len(tried)


def test_edges_try_one_and_zero_where_allowed_and_every_rank() -> None:
    declared = contract(**ATTENTION)
    labels = [s.label for s in edges(declared)]
    assert "every size 1" in labels and "Lq = 0" in labels and "Dv = 0" in labels
    assert "D = 0" not in labels  # D >= 1
    assert {"*B of rank 0", "*B of rank 2"} <= set(labels)


@pytest.mark.parametrize(("run", "single"), [
    ({"min": 0, "max_rank": 2}, [(1,)]),  # its smallest rank with a dimension, that dimension 1
    ({"min": 1, "min_rank": 2, "max_rank": 3}, [(1, 1)]),
    ({"min": 2, "max_rank": 2}, []),  # a dimension of 1 is not legal
    ({"min": 0, "ranks": [0]}, []),  # no dimension to set
])
def test_edges_try_a_variadic_run_with_its_dimensions_at_one_the_other_sizes_distinct(
    run: dict[str, Any], single: list[tuple[int, ...]]
) -> None:
    declared = contract(dims={"*S": run, "N": {}}, args={"x": {"kind": "tensor", "shape": ["*S", "N"]}},
                        result={"kind": "float"})
    found = [s for s in edges(declared) if s.runs["*S"] and set(s.runs["*S"]) == {1} and s.dims["N"] != 1]
    assert [s.runs["*S"] for s in found] == single
    assert all(s.label == f"*S = {list(s.runs['*S'])}" for s in found)


@pytest.mark.parametrize(("run", "empty"), [
    ({"min": 0, "max_rank": 2}, [(0,)]),  # the smallest rank with a dimension, that dimension 0
    ({"min": 0, "min_rank": 2, "max_rank": 3}, [(0, 13)]),
    ({"min": 1, "max_rank": 2}, []),  # its dimensions may not be empty
    ({"min": 0, "ranks": [0]}, []),  # no dimension to empty
])
def test_edges_try_an_empty_variadic_run_where_its_dimensions_may_be_empty(
    run: dict[str, Any], empty: list[tuple[int, ...]]
) -> None:
    declared = contract(dims={"*S": run}, args={"x": {"kind": "tensor", "shape": ["*S"]}}, result={"kind": "float"})
    assert [s.runs["*S"] for s in edges(declared) if 0 in s.runs["*S"]] == empty


def test_constraints_hold_in_every_assignment() -> None:
    declared = contract(dims={"G": {}, "C": {"multiple_of": "G"}, "P": {"even": True}},
                        args={"x": {"kind": "tensor", "shape": ["C", "P"]}}, result={"kind": "float"})
    for sizes in [*variations(declared), *edges(declared)]:
        assert sizes.dims["C"] % sizes.dims["G"] == 0 and sizes.dims["P"] % 2 == 0, sizes


# ------------------------------------------------------------------------------------------------- legality


def legal_attention(**changes: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"q": torch.zeros(2, 3, 4, dtype=torch.float64),
                            "k": torch.zeros(2, 5, 4, dtype=torch.float64),
                            "v": torch.zeros(2, 5, 6, dtype=torch.float64), "mask": None}
    args.update(changes)
    return args


@pytest.mark.parametrize(
    "changes, rules",
    [
        pytest.param({}, set(), id="legal"),
        pytest.param({"mask": torch.ones(5, dtype=torch.bool)}, set(), id="a broadcast mask"),
        pytest.param({"q": torch.zeros(3, 4, dtype=torch.float64), "k": torch.zeros(5, 4, dtype=torch.float64),
                      "v": torch.zeros(5, 6, dtype=torch.float64)}, set(), id="no leading dimensions"),
        pytest.param({"q": [[0.0]]}, {"kind"}, id="a list"),
        pytest.param({"q": None}, {"kind"}, id="None where not optional"),
        pytest.param({"q": torch.zeros(2, 3, 4)}, {"dtype"}, id="mixed dtypes"),
        pytest.param({"q": torch.zeros(2, 3, 4, dtype=torch.int64)}, {"dtype"}, id="an integer tensor"),
        pytest.param({"k": torch.zeros(2, 5, 3, dtype=torch.float64)}, {"shape"}, id="D disagrees"),
        pytest.param({"k": torch.zeros(1, 5, 4, dtype=torch.float64)}, {"shape"}, id="leading dims disagree"),
        pytest.param({"mask": torch.ones(3, 2, dtype=torch.bool)}, {"shape"}, id="a mask that does not broadcast"),
        pytest.param({"q": torch.full((2, 3, 4), math.nan, dtype=torch.float64)}, {"finite"}, id="nan"),
        pytest.param({"q": torch.zeros(2, 3, 4, dtype=torch.float64, device="meta")}, {"device"},
                     id="another device"),
    ],
)
def test_a_call_breaks_exactly_the_rules_it_breaks(changes: dict[str, Any], rules: set[str]) -> None:
    assert set(violations(contract(**ATTENTION), legal_attention(**changes))) == rules


@pytest.mark.parametrize(
    "value, rules",
    [(0.5, set()), (1, set()), (True, {"kind"}), ("0.5", {"kind"}), (torch.tensor(0.5), {"kind"}),
     (math.nan, {"finite"}), (math.inf, {"finite"}), (0.0, {"range"}), (None, {"kind"})],
)
def test_a_number_is_a_python_int_or_float_in_its_range(value: Any, rules: set[str]) -> None:
    declared = contract(args={"t": {"kind": "float", "range": "(0, 1]"}}, result={"kind": "float"})
    assert set(violations(declared, {"t": value})) == rules


def test_an_int_range_may_name_a_size() -> None:
    declared = contract(dims={"K": {}}, args={"queue": {"kind": "tensor", "shape": ["K"]},
                                               "pointer": {"kind": "int", "range": "[0, K)"}},
                        result={"kind": "int"})
    queue = torch.zeros(3, dtype=torch.float64)
    assert violations(declared, {"queue": queue, "pointer": 2}) == {}
    assert set(violations(declared, {"queue": queue, "pointer": 3})) == {"range"}
    assert set(violations(declared, {"queue": queue, "pointer": 2.0})) == {"kind"}


def test_sizes_describe_themselves() -> None:
    assert Sizes({"D": 3}, {"*B": (2,)}).describe() == "D=3, *B=[2]"
