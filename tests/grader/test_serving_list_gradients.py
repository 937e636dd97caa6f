"""Gradients with respect to a list argument (DINO's student views): the worker answers with a list, one gradient a
tensor of the list in order, None where no gradient reached it or the tensor was no leaf requiring grad when the
call began."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import pytest
import torch

from grader import protocol
from grader.sandboxed.learner_thread import Output, learner_namespace
from grader.sandboxed.serving import Served
from tests.grader.serving_support import run_directly


def _gradients(function: Callable[..., Any], views: list[torch.Tensor], grads: list[str],
               scale: torch.Tensor | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the decoded gradients, the reply) of one call function(views, scale) asking for `grads`."""
    module = types.ModuleType("submission")
    module.f = function  # type: ignore[attr-defined]
    arguments, blobs = protocol.encode(((views, torch.tensor(2.0) if scale is None else scale), {}))
    call = {"function": "f", "arguments": arguments, "grads": grads, "grad_output": None, "module": "",
            "uses": [], "keep": False}
    served = Served(module, Output(learner_namespace(), 100), run_directly, [], None, arena_copies=True)
    reply_blobs: list[bytes] = []
    reply = served.call(call, [bytearray(blob) for blob in blobs], reply_blobs)
    assert reply["raised"] is None, reply["raised"]
    decoded = {key: None if tree is None else protocol.decode(tree, reply_blobs)
               for key, tree in reply["grads"].items()}
    return decoded, reply


def _views(*requiring: bool) -> list[torch.Tensor]:
    return [torch.full((2,), float(index + 1), requires_grad=flag) for index, flag in enumerate(requiring)]


def weighted(views: list[torch.Tensor], scale: torch.Tensor) -> torch.Tensor:
    return sum((index + 1) * view.sum() for index, view in enumerate(views)) * scale


def test_each_tensor_of_a_list_gets_its_own_gradient_in_order() -> None:
    grads, _ = _gradients(weighted, _views(True, True, True), ["0"])
    assert [g.tolist() for g in grads["0"]] == [[2.0, 2.0], [4.0, 4.0], [6.0, 6.0]]


def test_a_tensor_of_the_list_that_did_not_require_grad_gets_none() -> None:
    grads, _ = _gradients(weighted, _views(True, False, True), ["0"])
    assert [None if g is None else g.tolist() for g in grads["0"]] == [[2.0, 2.0], None, [6.0, 6.0]]


def test_a_tensor_the_result_does_not_depend_on_gets_none() -> None:
    grads, _ = _gradients(lambda views, scale: views[0].sum() * scale, _views(True, True), ["0"])
    assert [None if g is None else g.tolist() for g in grads["0"]] == [[2.0, 2.0], None]


@pytest.mark.parametrize("function", [
    pytest.param(lambda views, scale: torch.tensor(weighted(views, scale).detach().item(), requires_grad=True),
                 id="rebuilt from a Python number"),
    pytest.param(lambda views, scale: weighted(views, scale).detach().requires_grad_(), id="detached, then a leaf"),
])
def test_a_result_cut_off_the_graph_gives_no_gradient_to_any_view(function: Callable[..., Any]) -> None:
    grads, reply = _gradients(function, _views(True, True), ["0"])
    assert grads["0"] == [None, None] and reply["backward_error"] is None


def test_a_view_swapped_in_the_list_by_the_call_is_measured_as_it_was() -> None:
    def swaps(views: list[torch.Tensor], scale: torch.Tensor) -> torch.Tensor:
        result = weighted(views, scale)
        views[0] = torch.zeros(2, requires_grad=True)  # the caller's list now holds another tensor
        return result

    grads, _ = _gradients(swaps, _views(True, True), ["0"])
    assert [g.tolist() for g in grads["0"]] == [[2.0, 2.0], [4.0, 4.0]]


def test_a_view_whose_requires_grad_the_call_cleared_still_gets_its_gradient() -> None:
    def clears(views: list[torch.Tensor], scale: torch.Tensor) -> torch.Tensor:
        result = weighted(views, scale)
        views[1].requires_grad_(False)
        return result

    grads, _ = _gradients(clears, _views(True, True), ["0"])
    assert [g.tolist() for g in grads["0"]] == [[2.0, 2.0], [4.0, 4.0]]


def test_a_list_and_a_tensor_argument_get_their_gradients_in_one_call() -> None:
    grads, _ = _gradients(weighted, _views(True, True), ["0", "1"], scale=torch.tensor(2.0, requires_grad=True))
    assert [g.tolist() for g in grads["0"]] == [[2.0, 2.0], [4.0, 4.0]]
    assert grads["1"].item() == pytest.approx(1 * 2.0 + 2 * 4.0)


def test_a_list_not_asked_for_gets_no_gradient() -> None:
    grads, _ = _gradients(weighted, _views(True, True), ["1"], scale=torch.tensor(2.0, requires_grad=True))
    assert set(grads) == {"1"}


def test_a_hook_registered_on_a_tensor_of_the_list_marks_the_list_changed() -> None:
    def hooks(views: list[torch.Tensor], scale: torch.Tensor) -> torch.Tensor:
        views[1].register_hook(lambda grad: grad * 0 + 7)  # type: ignore[no-untyped-call]
        return weighted(views, scale)

    _, reply = _gradients(hooks, _views(True, True), ["0"])
    assert reply["mutated"] == ["0"]


def test_a_list_left_alone_is_not_marked_changed() -> None:
    _, reply = _gradients(weighted, _views(True, True), ["0"])
    assert reply["mutated"] == []
