"""Whether what a call returned is what the contract declares for its arguments (grader.contract.expect.
contract_mismatch): its kind, and each tensor's shape and dtype as the arguments' sizes make them. The judge names
such a value when a check cannot go on with it, instead of calling the crash a bug in the problem's checks."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from grader.contract.expect import contract_mismatch
from grader.contract.legality import bound_sizes, violations
from grader.contract.schema import FunctionContract, SizeExpression
from grader.contract.sizes import Sizes, solve_expressions

ROWS = FunctionContract.model_validate({
    "dims": {"*B": {"max_rank": 2}, "N": {"max": 4}},
    "args": {"x": {"kind": "tensor", "shape": ["*B", "N"]}, "scale": {"kind": "float"}},
    "result": {"kind": "tensor", "shape": ["*B", "N"], "dtype": "x"},
})
PATCHES = FunctionContract.model_validate({  # Hp and Wp appear only inside expressions
    "dims": {"B": {"min": 0}, "P": {"max": 3}, "Hp": {"max": 3}, "Wp": {"max": 3}},
    "args": {"images": {"kind": "tensor", "shape": ["B", "P*Hp", "P*Wp"]}, "patch": {"kind": "int", "size": "P"}},
    "result": {"kind": "tensor", "shape": ["B", "Hp*Wp", "P*P"], "dtype": "images"},
})
PAIR = FunctionContract.model_validate({
    "dims": {"N": {}},
    "args": {"x": {"kind": "tensor", "shape": ["N"]}},
    "result": {"kind": "tuple", "items": [{"kind": "tensor", "shape": []}, {"kind": "tensor", "shape": ["N"],
                                                                          "dtype": "int64"}]},
})
COUNTED = FunctionContract.model_validate({  # the result's length is a size no argument gives
    "dims": {"N": {}, "M": {}},
    "args": {"x": {"kind": "tensor", "shape": ["N"]}},
    "result": {"kind": "tensor", "shape": ["M"], "dtype": "x"},
})
GRADS = FunctionContract.model_validate({
    "dims": {"L": {}, "*S": {"max_rank": 2}},
    "args": {"grads": {"kind": "tensor_list", "length": "L", "item": {"kind": "tensor", "shape": ["*S"]}}},
    "result": {"kind": "tensor_list", "like": "grads"},
})
X = torch.zeros(2, 3)


@pytest.mark.parametrize(("contract", "args", "value", "found"), [
    pytest.param(ROWS, {"x": X, "scale": 2.0}, torch.ones(2, 3), None, id="as declared"),
    pytest.param(ROWS, {"x": X, "scale": 2.0}, None, "None, where the contract says a tensor", id="None"),
    pytest.param(ROWS, {"x": X, "scale": 2.0}, torch.ones(2, 2),
                 "a tensor float32[2, 2] [[1, 1], [1, 1]], where the contract says float32[2, 3] for these "
                 "arguments", id="a dimension short"),
    pytest.param(ROWS, {"x": X, "scale": 2.0}, torch.ones(1, 2, 3),
                 "a tensor float32[1, 2, 3], where the contract says float32[2, 3] for these arguments",
                 id="a dimension more"),
    pytest.param(ROWS, {"x": X, "scale": 2.0}, torch.ones(2, 3, dtype=torch.float64),
                 "a tensor float64[2, 3], where the contract says float32[2, 3] for these arguments",
                 id="another dtype"),
    pytest.param(ROWS, {"x": torch.zeros(2, 9), "scale": 2.0}, torch.ones(2, 8),
                 "a tensor float32[2, 8], where the contract says float32[2, 9] for these arguments",
                 id="a size past the battery's bound"),
    pytest.param(ROWS, {"x": X, "scale": float("nan")}, torch.ones(2, 2),
                 "a tensor float32[2, 2] [[1, 1], [1, 1]], where the contract says float32[2, 3] for these "
                 "arguments",
                 id="a value the contract refuses"),
    pytest.param(PATCHES, {"images": torch.zeros(2, 4, 6), "patch": 2}, torch.ones(2, 24),
                 "a tensor float32[2, 24], where the contract says float32[2, 6, 4] for these arguments",
                 id="a flattened result, its shape solved from expressions"),
    pytest.param(PAIR, {"x": torch.zeros(3)}, (torch.tensor(1.0), torch.zeros(3, dtype=torch.int64)), None,
                 id="a tuple as declared"),
    pytest.param(PAIR, {"x": torch.zeros(3)}, (torch.zeros(1), torch.zeros(3, dtype=torch.int64)),
                 "a tuple whose item 0 is a tensor float32[1] [0], where the contract says float32[] for these "
                 "arguments", id="a tuple's item of another shape"),
    pytest.param(PAIR, {"x": torch.zeros(3)}, (torch.tensor(1.0), torch.zeros(3)),
                 "a tuple whose item 1 is a tensor float32[3] [0, 0, 0], where the contract says int64[3] for "
                 "these arguments", id="a tuple's item of another dtype"),
    pytest.param(COUNTED, {"x": torch.zeros(3)}, torch.zeros(7), None, id="a size no argument gives"),
    pytest.param(COUNTED, {"x": torch.zeros(3)}, torch.zeros(7, dtype=torch.float64),
                 "a tensor float64[7], where the contract says float32 for these arguments",
                 id="a size no argument gives, the dtype still declared"),
    pytest.param(GRADS, {"grads": [torch.zeros(2), None]}, [torch.ones(2), None], None, id="a list like another"),
    pytest.param(GRADS, {"grads": [torch.zeros(2), torch.zeros(3, 1)]}, [torch.ones(2), torch.ones(3)],
                 "a list whose item 1 is a tensor float32[3] [1, 1, 1], where the contract says float32[3, 1] "
                 "for these arguments", id="a list's item of another shape"),
])
def test_a_result_is_what_the_contract_declares_or_named(contract: FunctionContract, args: dict[str, Any],
                                                         value: Any, found: str | None) -> None:
    assert contract_mismatch(value, contract, args) == found


def test_a_result_matching_the_solved_shape_is_not_named() -> None:
    assert contract_mismatch(torch.ones(2, 6, 4), PATCHES, {"images": torch.zeros(2, 4, 6), "patch": 2}) is None


def test_arguments_whose_shapes_disagree_leave_the_result_unjudged() -> None:
    shared = FunctionContract.model_validate({
        "dims": {"N": {}},
        "args": {"x": {"kind": "tensor", "shape": ["N"]}, "y": {"kind": "tensor", "shape": ["N"]}},
        "result": {"kind": "tensor", "shape": ["N"], "dtype": "x"},
    })
    disagreeing = {"x": torch.zeros(2), "y": torch.zeros(3)}
    assert bound_sizes(shared, disagreeing) is None
    assert contract_mismatch(torch.zeros(5), shared, disagreeing) is None


def test_an_expression_no_value_solves_leaves_the_result_unjudged() -> None:
    unsolvable = {"images": torch.zeros(2, 4, 6), "patch": 4}  # 6 is no multiple of 4
    assert contract_mismatch(torch.zeros(5), PATCHES, unsolvable) is None


def test_sizes_past_the_battery_bound_are_bound_though_the_call_is_not_legal() -> None:
    args = {"x": torch.zeros(2, 9), "scale": 2.0}
    assert "shape" in violations(ROWS, args)
    sizes = bound_sizes(ROWS, args)
    assert sizes is not None and (sizes.dims, sizes.runs) == ({"N": 9}, {"*B": (2,)})


@pytest.mark.parametrize(("entry", "size", "solved"), [
    ("P*Hp", 6, {"P": 2, "Hp": 3}),
    ("T+1", 5, {"P": 2, "T": 4}),
    ("T-1", 5, {"P": 2, "T": 6}),
    ("2*T", 0, {"P": 2, "T": 0}),
    ("T//2", 3, {"P": 2}),  # 6 and 7 both fit: left unsolved
    ("2*T", 5, {"P": 2}),  # nothing fits
    ("T*Q", 6, {"P": 2}),  # two unknowns
])
def test_a_symbol_only_an_expression_holds_is_solved_where_one_value_fits(entry: str, size: int,
                                                                         solved: dict[str, int]) -> None:
    sizes = solve_expressions(Sizes({"P": 2}), [((SizeExpression(entry),), (size,))])
    assert sizes.dims == solved


def test_a_linear_expression_is_solved_at_any_size() -> None:
    assert solve_expressions(Sizes(), [((SizeExpression("2*T+1"),), (200_001,))]).dims == {"T": 100_000}


def test_another_expression_is_solved_by_trying_values_up_to_the_limit() -> None:
    shapes = [((SizeExpression("T*T"),), (100,))]
    assert solve_expressions(Sizes(), shapes, limit=5).dims == {}
    assert solve_expressions(Sizes(), shapes, limit=100).dims == {"T": 10}


def test_a_solved_symbol_solves_the_next_expression() -> None:
    shapes = [((SizeExpression("T*Q"),), (12,)), ((SizeExpression("T+1"),), (4,))]
    assert solve_expressions(Sizes(), shapes).dims == {"T": 3, "Q": 4}
