"""grader.describe, specified: every failure message is built from these descriptions, so each rule below is
something a learner reads (the kind of a tensor, its values when there are few, values that differ printed
apart)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from grader.calls import CheckFailed
from grader.checks import expect_equal
from grader.describe import SMALL_TENSOR, describe, format_values, tensor_kind


@pytest.mark.parametrize(
    "tensor, kind",
    [
        pytest.param(torch.zeros(2, 3, dtype=torch.int64), "int64[2, 3]", id="dtype-and-shape"),
        pytest.param(torch.zeros(()), "float32[]", id="zero-dim"),
        pytest.param(torch.zeros(2, device="meta"), "float32[2] (on meta)", id="device"),
        pytest.param(torch.zeros(2, device="meta", requires_grad=True), "float32[2] (on meta, requires_grad)",
                     id="device-and-grad"),
        pytest.param(torch.arange(6.0)[::2], "float32[3]", id="a-strided-vector-is-not-flagged"),
        pytest.param(torch.zeros(2, 3)[:, ::2], "float32[2, 2] (strides (3, 2))", id="strided-matrix"),
        pytest.param(torch.nn.Parameter(torch.zeros(3, 2).t()), "float32[2, 3] (requires_grad, Parameter)",
                     id="a-parameter-is-named-not-its-strides"),
    ],
)
def test_tensor_kind(tensor: torch.Tensor, kind: str) -> None:
    assert tensor_kind(tensor) == kind


@pytest.mark.parametrize(
    "tensor, values",
    [
        pytest.param(torch.tensor([[1, 2], [3, 4]]), "[[1, 2], [3, 4]]", id="nested-ints"),
        pytest.param(torch.tensor([1.0 / 3.0], dtype=torch.float64), "[0.333333]", id="six-digits"),
        pytest.param(torch.tensor([0.1], dtype=torch.float16), "[0.0999756]", id="float16-as-float"),
        pytest.param(torch.tensor([0.1], dtype=torch.bfloat16), "[0.100098]", id="bfloat16-as-float"),
        pytest.param(torch.tensor([True]), "[True]", id="bool"),
        pytest.param(torch.tensor(7), "7", id="zero-dim"),
        pytest.param(torch.ones(2, requires_grad=True), "[1, 1]", id="grad-tracking"),
    ],
)
def test_format_values(tensor: torch.Tensor, values: str) -> None:
    assert format_values(tensor) == values


@pytest.mark.parametrize(
    "size, full_has_values, compact_has_values",
    [(4, True, True), (5, True, False), (SMALL_TENSOR, True, False), (SMALL_TENSOR + 1, False, False)],
)
def test_values_are_shown_for_small_tensors_only(size: int, full_has_values: bool, compact_has_values: bool) -> None:
    tensor = torch.zeros(size)
    values = " [" + ", ".join(["0"] * size) + "]"
    assert describe(tensor) == f"float32[{size}]" + (values if full_has_values else "")
    assert describe(tensor, compact=True) == f"float32[{size}]" + (values if compact_has_values else "")


def test_a_meta_tensor_has_no_values_to_show() -> None:
    assert describe(torch.zeros(2, device="meta")) == "float32[2] (on meta)"


@pytest.mark.parametrize(
    "value, full, compact",
    [
        pytest.param((), "()", "()", id="empty-tuple"),
        pytest.param((0.1 + 0.2,), "(0.30000000000000004,)", "(0.3,)", id="compact-reaches-into-tuples"),
        pytest.param([0.1 + 0.2, 1], "[0.30000000000000004, 1]", "[0.3, 1]", id="compact-reaches-into-lists"),
        pytest.param((torch.zeros(5),), "(float32[5] [0, 0, 0, 0, 0],)", "(float32[5],)", id="tensor-in-tuple"),
        pytest.param([torch.zeros(5)], "[float32[5] [0, 0, 0, 0, 0]]", "[float32[5]]", id="tensor-in-list"),
        pytest.param(1.0, "1.0", "1", id="float"),
        pytest.param("x" * 78, repr("x" * 78), repr("x" * 78), id="80-characters-kept"),
    ],
)
def test_describe(value: Any, full: str, compact: str) -> None:
    assert describe(value) == full
    assert describe(value, compact=True) == compact


def test_a_repr_over_80_characters_keeps_77_and_an_ellipsis() -> None:
    text = "y" * 79  # repr adds two quotes: 81 characters
    assert describe(text) == repr(text)[:77] + "..."


@pytest.mark.parametrize(
    "got, expected, text",
    [
        pytest.param(0.1000001, 0.1, "the result: expected 0.1 (float), got 0.1000001 (float)", id="float"),
        pytest.param(1.0 + 1e-15, 1.0, "the result: expected 1.0 (float), got 1.000000000000001 (float)",
                     id="float-16-digits"),
        pytest.param((0.1000001,), (0.1,), "the result[0]: expected 0.1 (float), got 0.1000001 (float)",
                     id="in-a-tuple"),
    ],
)
def test_values_that_differ_are_never_described_alike(got: Any, expected: Any, text: str) -> None:
    with pytest.raises(CheckFailed) as caught:
        expect_equal(got, expected)
    assert str(caught.value) == text
