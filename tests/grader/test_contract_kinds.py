"""Whether a value is of the kind a contract's result declares (grader.contract.expect.kind_mismatch): the judge
names such a value when a check cannot go on with it."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from pydantic import TypeAdapter

from grader.contract.expect import kind_mismatch, kind_name
from grader.contract.schema import Result

RESULT: TypeAdapter[Any] = TypeAdapter(Result)
TENSOR = {"kind": "tensor", "shape": ["N"]}
PAIR = {"kind": "tuple", "items": [TENSOR, {"kind": "int"}]}


def spec(declared: dict[str, Any]) -> object:
    return RESULT.validate_python(declared)


@pytest.mark.parametrize(("declared", "value", "found"), [
    pytest.param(TENSOR, torch.zeros(2), None, id="a tensor"),
    pytest.param(TENSOR, None, "None", id="None for a tensor"),
    pytest.param(TENSOR, [1.0], "a list ([1])", id="a list for a tensor"),
    pytest.param({"kind": "float"}, 1.5, None, id="a float"),
    pytest.param({"kind": "float"}, torch.tensor(1.5), "a tensor float32[] 1.5", id="a tensor for a float"),
    pytest.param({"kind": "float"}, 1, "int 1", id="an int for a float"),
    pytest.param({"kind": "none"}, None, None, id="None where None is declared"),
    pytest.param(PAIR, (torch.zeros(1), 3), None, id="a tuple"),
    pytest.param(PAIR, (torch.zeros(1),), "a tuple ((float32[1] [0],))",
                 id="a tuple one short"),
    pytest.param(PAIR, [torch.zeros(1), 3],
                 "a list ([float32[1] [0], 3])",
                 id="a list for a tuple"),
    pytest.param(PAIR, (None, 3), "None", id="None inside a tuple"),
    pytest.param({"kind": "list", "item": {"kind": "int"}}, [1, 2], None, id="a list of ints"),
    pytest.param({"kind": "list", "item": {"kind": "int"}}, [1, "2"], "str '2'", id="a str among ints"),
    pytest.param({"kind": "list", "item": {"kind": "int"}}, (1, 2), "a tuple ((1, 2))", id="a tuple for a list"),
    pytest.param({"kind": "tensor_list", "like": "grads"}, [torch.zeros(1), None], None, id="tensors and None"),
    pytest.param({"kind": "tensor_list", "like": "grads"}, [1.0], "a list ([1])", id="a float among tensors"),
])
def test_a_value_is_of_the_declared_kind_or_named(declared: dict[str, Any], value: Any, found: str | None) -> None:
    assert kind_mismatch(value, spec(declared)) == found


@pytest.mark.parametrize(("declared", "name"), [
    (TENSOR, "tensor"), ({"kind": "float"}, "float"), ({"kind": "list", "item": {"kind": "int"}}, "list of ints"),
    ({"kind": "tuple", "items": [TENSOR]}, "tuple"), ({"kind": "tensor_list", "like": "grads"}, "list of tensors"),
])
def test_a_kind_is_named_for_a_message(declared: dict[str, Any], name: str) -> None:
    assert kind_name(spec(declared)) == name
