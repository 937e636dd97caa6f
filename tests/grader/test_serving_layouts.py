"""Which arguments the worker reports as changed by a call without their bytes being written (the judge sees a
write in its own mapping): shape, strides, storage, version counter, class, autograd facts, hooks."""

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


class Marked(torch.Tensor):
    pass


def _mutated(body: Callable[[torch.Tensor], Any], x: torch.Tensor) -> list[str]:
    module = types.ModuleType("submission")
    module.f = lambda x, y: (body(x), None)[1]  # type: ignore[attr-defined]
    arguments, blobs = protocol.encode(((x, torch.zeros(2)), {}))
    call = {"function": "f", "arguments": arguments, "grads": [], "grad_output": None, "module": "",
            "uses": [], "keep": False}
    served = Served(module, Output(learner_namespace(), 100), run_directly, [], None, arena_copies=True)
    reply = served.call(call, [bytearray(blob) for blob in blobs], [])
    assert reply["raised"] is None, reply["raised"]
    return list(reply["mutated"])


def _leaf() -> torch.Tensor:
    return torch.arange(6.0).reshape(2, 3).requires_grad_(True)


@pytest.mark.parametrize(("body", "make"), [
    pytest.param(lambda x: x.t_(), lambda: torch.arange(6.0).reshape(2, 3), id="transposed-in-place"),
    pytest.param(lambda x: x.resize_(3, 2), lambda: torch.arange(6.0).reshape(2, 3), id="resized"),
    pytest.param(lambda x: x.set_(torch.zeros(2, 3)), lambda: torch.arange(6.0).reshape(2, 3), id="new-storage"),
    pytest.param(lambda x: x.add_(0), lambda: torch.arange(6.0).reshape(2, 3), id="same-value-write"),
    pytest.param(lambda x: x.requires_grad_(False), _leaf, id="requires-grad-cleared"),
    pytest.param(lambda x: x.register_hook(lambda g: g), _leaf, id="hook"),
    pytest.param(lambda x: x.register_post_accumulate_grad_hook(lambda t: None), _leaf, id="post-accumulate-hook"),
    pytest.param(lambda x: setattr(x, "__class__", Marked), lambda: torch.arange(6.0).reshape(2, 3),
                 id="class-assigned"),
])
def test_a_change_of_an_arguments_facts_is_reported(body: Callable[[torch.Tensor], Any],
                                                    make: Callable[[], torch.Tensor]) -> None:
    assert _mutated(body, make()) == ["0"]


@pytest.mark.parametrize(("body", "make"), [
    pytest.param(lambda x: x.sum(), lambda: torch.arange(6.0).reshape(2, 3), id="read"),
    pytest.param(lambda x: x * 2, _leaf, id="graph-built"),
    pytest.param(lambda x: x.t(), lambda: torch.arange(6.0).reshape(2, 3), id="a-view-returned"),
])
def test_an_argument_only_read_is_not_reported(body: Callable[[torch.Tensor], Any],
                                              make: Callable[[], torch.Tensor]) -> None:
    assert _mutated(body, make()) == []
