"""grader.describe: the compact value descriptions every failure message is built from."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from grader.calls import describe_call
from grader.describe import SMALL_TENSOR, describe, format_values, tensor_kind
from grader.protocol import Opaque


@pytest.mark.parametrize(
    "value, full, compact",
    [
        pytest.param(torch.arange(4.0), "float32[4] [0, 1, 2, 3]", "float32[4] [0, 1, 2, 3]", id="small"),
        pytest.param(torch.ones(2, 3), "float32[2, 3] [[1, 1, 1], [1, 1, 1]]", "float32[2, 3]", id="six-elements"),
        pytest.param(torch.arange(9.0), "float32[9]", "float32[9]", id="large"),
        pytest.param(torch.tensor(2.5, dtype=torch.float64), "float64[] 2.5", "float64[] 2.5", id="zero-dim"),
        pytest.param(torch.zeros(0), "float32[0] []", "float32[0] []", id="empty"),
        pytest.param(torch.ones(2, requires_grad=True), "float32[2] (requires_grad) [1, 1]",
                     "float32[2] (requires_grad) [1, 1]", id="requires-grad"),
        pytest.param(torch.nn.Parameter(torch.ones(2)), "float32[2] (requires_grad, Parameter) [1, 1]",
                     "float32[2] (requires_grad, Parameter) [1, 1]", id="parameter"),
        pytest.param(torch.ones(3, 2).t(), "float32[2, 3] (strides (1, 2)) [[1, 1, 1], [1, 1, 1]]",
                     "float32[2, 3] (strides (1, 2))", id="non-contiguous"),
        pytest.param(torch.tensor([1.5, 2.0], dtype=torch.bfloat16), "bfloat16[2] [1.5, 2]", "bfloat16[2] [1.5, 2]",
                     id="bfloat16"),
        pytest.param(torch.tensor([True, False]), "bool[2] [True, False]", "bool[2] [True, False]", id="bool"),
        pytest.param(torch.tensor([1.0 / 3.0]), "float32[1] [0.333333]", "float32[1] [0.333333]", id="six-digits"),
        pytest.param(0.1 + 0.2, "0.30000000000000004", "0.3", id="float"),
        pytest.param((1,), "(1,)", "(1,)", id="one-tuple"),
        pytest.param((1.5, "a"), "(1.5, 'a')", "(1.5, 'a')", id="tuple"),
        pytest.param([torch.ones(1), None], "[float32[1] [1], None]", "[float32[1] [1], None]", id="list"),
        pytest.param(Opaque("Liar (a torch.Tensor subclass)"), "<Liar (a torch.Tensor subclass) object>",
                     "<Liar (a torch.Tensor subclass) object>", id="opaque"),
    ],
)
def test_describe(value: Any, full: str, compact: str) -> None:
    assert describe(value) == full
    assert describe(value, compact=True) == compact


def test_long_reprs_are_cut_to_80_characters() -> None:
    text = describe("x" * 500)
    assert len(text) == 80 and text.endswith("...")


def test_small_tensor_threshold() -> None:
    assert describe(torch.zeros(SMALL_TENSOR)).endswith("]")
    assert describe(torch.zeros(SMALL_TENSOR + 1)) == f"float32[{SMALL_TENSOR + 1}]"


def test_tensor_kind_and_values() -> None:
    assert tensor_kind(torch.zeros(2, 3, dtype=torch.int64)) == "int64[2, 3]"
    assert format_values(torch.tensor([[1, 2], [3, 4]])) == "[[1, 2], [3, 4]]"
    assert format_values(torch.tensor([0.5], dtype=torch.float16)) == "[0.5]"


def test_describe_call_names_arguments() -> None:
    assert describe_call("f", ("x", "y"), (torch.ones(2), 3), {"z": None}) == "f(x=float32[2] [1, 1], y=3, z=None)"
    assert describe_call("f", ("x",), (1, 2), {}) == "f(x=1, arg1=2)"  # an extra positional gets a placeholder
    assert describe_call("g", (), (), {}) == "g()"
