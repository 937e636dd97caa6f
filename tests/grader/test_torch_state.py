"""What the worker watches of torch's dispatcher (grader/sandboxed/torch_state.py): a kernel is registered for one
overload of an operator, so every overload of every operator the worker runs is watched, by a name that names it."""

from __future__ import annotations

import pytest
import torch

from grader.sandboxed import torch_state


@pytest.mark.parametrize("name", torch_state.WORKER_OPERATORS)
def test_every_watched_name_names_an_operator(name: str) -> None:
    """A name the dispatcher does not know dumps as "" before and after any registration: it would watch nothing."""
    assert torch._C._dispatch_dump(name) != ""


@pytest.mark.parametrize("base", torch_state.WORKER_OPERATOR_NAMES)
def test_every_overload_of_a_worker_operator_is_watched(base: str) -> None:
    overloads = {name for name in torch._C._dispatch_get_all_op_names() if name.partition(".")[0] == f"aten::{base}"}
    assert overloads, f"aten::{base} has no overload in this torch"
    assert overloads <= set(torch_state.WORKER_OPERATORS)


@pytest.mark.parametrize("overload", ["aten::fill_.Scalar", "aten::randn.generator", "aten::view.dtype",
                                      "aten::empty.memory_format", "aten::resolve_conj"])
def test_the_overloads_the_worker_reaches_are_watched(overload: str) -> None:
    """ones() fills through fill_.Scalar, a seeded cotangent is drawn with randn.generator, a blob is seen as its
    dtype through view.dtype, an empty argument is made by empty.memory_format, a result is read through
    resolve_conj."""
    assert overload in torch_state.WORKER_OPERATORS


def test_a_snapshot_equals_itself_and_names_no_change() -> None:
    assert torch_state.changes(torch_state.snapshot(), torch_state.snapshot()) == ""
