"""Which arguments the worker reports a returned tensor as sharing storage with: a tensor argument, and a tensor
inside a list or tuple argument (reported under that argument's key), but never a fresh result."""

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


def _aliased(function: Callable[..., Any], *args: Any) -> list[str]:
    module = types.ModuleType("submission")
    module.f = function  # type: ignore[attr-defined]
    arguments, blobs = protocol.encode((args, {}))
    call = {"function": "f", "arguments": arguments, "grads": [], "grad_output": None, "module": "", "uses": []}
    served = Served(module, Output(learner_namespace(), 100), run_directly, [], None, arena_copies=True)
    reply = served.call(call, [bytearray(blob) for blob in blobs], [])
    assert reply["raised"] is None, reply["raised"]
    return list(reply["aliased"])


def _pair() -> list[torch.Tensor]:
    return [torch.arange(4.0), torch.ones(2, 3)]


@pytest.mark.parametrize(("function", "args", "aliased"), [
    pytest.param(lambda x, ts: x, (torch.zeros(3), _pair()), ["0"], id="a tensor argument itself"),
    pytest.param(lambda x, ts: [t.detach() for t in ts], (torch.zeros(3), _pair()), ["1"],
                 id="detached views of a list's tensors"),
    pytest.param(lambda x, ts: ts[1][0], (torch.zeros(3), _pair()), ["1"], id="a view into a list's tensor"),
    pytest.param(lambda x, ts: ts[0], (torch.zeros(3), tuple(_pair())), ["1"], id="a tuple's tensor itself"),
    pytest.param(lambda x, ts: [t.clone() for t in ts], (torch.zeros(3), _pair()), [], id="copies"),
    pytest.param(lambda x, ts: (ts[0], ts.__setitem__(0, ts[0].clone()))[0], (torch.zeros(3), _pair()), ["1"],
                 id="a list's tensor returned, then swapped in the list for a copy"),
    pytest.param(lambda x, ts: x + 1, (torch.zeros(3), _pair()), [], id="a fresh result"),
])
def test_a_result_sharing_storage_with_an_argument_is_reported_under_its_key(
    function: Callable[..., Any], args: tuple[Any, ...], aliased: list[str]
) -> None:
    assert _aliased(function, *args) == aliased
