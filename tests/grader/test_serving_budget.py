"""The worker's serving refuses a request whose reply could never be sent (its tensors over the message limit)
before copying the tensor that passes the limit: the verdict then names the message limit, whatever memory the
copy would have needed."""

from __future__ import annotations

import gc
import types
import weakref
from collections.abc import Callable
from typing import Any

import torch

from grader import protocol
from grader.sandboxed.learner_thread import Output, learner_namespace
from grader.sandboxed.serving import Served
from tests.grader.serving_support import run_directly


def _serve(module: types.ModuleType, calls: list[tuple[Any, list[str]]], max_message: int) -> tuple[dict[str, Any],
                                                                                                    list[bytes]]:
    """`calls`: (the argument, the arguments to differentiate) for each call of `f`, in one request."""
    wire: list[dict[str, Any]] = []
    blobs: list[bytearray] = []
    for argument, grads in calls:
        arguments, sent = protocol.encode(((argument,), {}))
        if sent and len(calls) > 1:
            raise ValueError("a tensor argument only in a request of one call (its blobs are numbered from 0)")
        blobs += [bytearray(blob) for blob in sent]
        wire.append({"function": "f", "arguments": arguments, "grads": grads, "grad_output": None, "module": "",
                     "uses": [], "keep": False})
    served = Served(module, Output(learner_namespace(), 100), run_directly, [], None, arena_copies=True)
    return served.calls({"op": "calls", "calls": wire}, blobs, max_message)


def _module(f: Callable[..., Any]) -> types.ModuleType:
    module = types.ModuleType("submission")
    module.f = f  # type: ignore[attr-defined]
    return module


def test_a_reply_of_exactly_the_message_limit_is_sent() -> None:
    reply, blobs = _serve(_module(lambda n: torch.zeros(n, dtype=torch.float64)), [(4, []), (2, [])], 48)
    assert reply["op"] == "results" and [len(blob) for blob in blobs] == [32, 16]


def test_a_reply_over_the_message_limit_is_too_large_with_its_size() -> None:
    reply, blobs = _serve(_module(lambda n: torch.zeros(n, dtype=torch.float64)), [(4, []), (2, [])], 47)
    assert (reply, blobs) == ({"op": "too_large", "size": 48}, [])


def test_the_calls_after_the_one_that_passes_the_limit_are_not_run() -> None:
    ran: list[int] = []

    def f(n: int) -> torch.Tensor:
        ran.append(n)
        return torch.zeros(n, dtype=torch.float64)

    reply, _ = _serve(_module(f), [(4, []), (1, []), (1, [])], 39)
    assert reply == {"op": "too_large", "size": 40} and ran == [4, 1]


def test_a_cotangent_that_passes_the_limit_makes_the_reply_too_large_not_a_backward_error() -> None:
    """A gradient's default cotangent is sent back too, as large as the result."""
    leaf = torch.ones(4, dtype=torch.float64, requires_grad=True)

    def f(scale: float) -> torch.Tensor:
        return leaf * scale

    module = _module(f)
    reply, _ = _serve(module, [(2.0, ["0"])], 63)
    assert reply == {"op": "too_large", "size": 64}


def _subclasses(kind: type) -> list[type]:
    found = [kind]
    subclasses: list[type] = type.__subclasses__(kind)
    for sub in subclasses:
        found += _subclasses(sub)
    return found


def test_a_backward_that_raises_the_budget_exception_itself_is_a_backward_error() -> None:
    """The learner's code can find OverBudget among Exception's subclasses: raised from its backward, it must not
    pass for the worker's own, which would end the call on a message limit it never reached, at a size it chose."""
    forged = next(kind for kind in _subclasses(Exception) if kind.__name__ == "OverBudget")

    class Liar(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
            raise forged(2**40)

    leaf = torch.ones(2, dtype=torch.float64, requires_grad=True)
    reply, _ = _serve(_module(Liar.apply), [(leaf, ["0"])], 2**20)
    assert reply["op"] == "results"
    (result,) = reply["results"]
    assert result["backward_error"] == f"{2**40} bytes of tensors exceed the encoder's budget"


def test_a_result_over_the_limit_is_freed_when_its_request_ends() -> None:
    """Nothing of the refused request may keep its result alive until a garbage collection: a reference cycle
    through the exception once did, and the child's next call ran out of memory before one ran (a call makes few
    Python objects, so collections are rare). The collector is off here so that only references count."""
    kept: list[weakref.ref[torch.Tensor]] = []

    def f(n: int) -> torch.Tensor:
        result = torch.zeros(n, dtype=torch.float64)
        kept.append(weakref.ref(result))
        return result

    gc.disable()
    try:
        reply, _ = _serve(_module(f), [(4, [])], 31)
        assert reply["op"] == "too_large"
        assert kept[0]() is None
    finally:
        gc.enable()
