"""Which arguments the worker reports a returned tensor as sharing storage with: a tensor argument, and a tensor
inside a list or tuple argument (reported under that argument's key), but never a fresh result."""

from __future__ import annotations

import types
import warnings
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
    call = {"function": "f", "arguments": arguments, "grads": [], "grad_output": None, "module": "",
            "uses": [], "keep": False}
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


def _request(function: Callable[..., Any], calls: int, *, keep: bool, T: int = 3) -> list[dict[str, Any]]:  # noqa: N803
    """Serve one request of `calls` calls of function(T) and give back the replies."""
    module = types.ModuleType("submission")
    module.f = function  # type: ignore[attr-defined]
    arguments, blobs = protocol.encode(((T,), {}))
    call = {"function": "f", "arguments": arguments, "grads": [], "grad_output": None, "module": "", "uses": [],
            "keep": keep}
    served = Served(module, Output(learner_namespace(), 100), run_directly, [], None, arena_copies=True)
    reply, _ = served.calls({"calls": [call] * calls}, [bytearray(blob) for blob in blobs], 2**30)
    replies: list[dict[str, Any]] = reply["results"]
    assert all(item["raised"] is None for item in replies), replies
    return replies


CACHE: dict[int, torch.Tensor] = {}


def _memoised(T: int) -> torch.Tensor:
    return CACHE.setdefault(T, torch.ones(T, T))


def _moved_each_call(T: int) -> torch.Tensor:
    """The same tensor every time, moved onto new memory before it is returned again: the earlier result, being
    that very tensor, moves with it."""
    table = CACHE.setdefault(-T, torch.ones(T, T))
    table.set_(torch.ones(T, T).untyped_storage())
    return table


@pytest.mark.parametrize(("function", "shares"), [
    pytest.param(lambda T: torch.ones(T, T), [[], [], []], id="a new tensor each call"),
    pytest.param(_memoised, [[], [0], [0, 1]], id="one memoised tensor"),
    pytest.param(lambda T: _memoised(T)[1:], [[], [0], [0, 1]], id="views of one memoised tensor"),
    pytest.param(lambda T: (torch.zeros(1), _memoised(T).t()), [[], [0], [0, 1]], id="a memoised tensor in a tuple"),
    pytest.param(_moved_each_call, [[], [0], [0, 1]], id="one tensor moved onto new memory each call"),
    pytest.param(lambda T: torch.ones(0, T), [[], [], []], id="empty tensors, which hold no memory"),
])
def test_a_result_sharing_memory_with_an_earlier_kept_result_of_the_request_is_reported(
    function: Callable[..., Any], shares: list[list[int]]
) -> None:
    CACHE.clear()
    assert [item["shares"] for item in _request(function, 3, keep=True)] == shares


@pytest.mark.parametrize("T", [3, 600], ids=["small", "a mapping of its own"])
def test_a_kept_result_outlives_the_call_so_a_fresh_one_never_reuses_its_memory(T: int) -> None:  # noqa: N803
    # Freed at once, the first result's memory is where the allocator would put the second, equal-sized one.
    assert [item["shares"] for item in _request(lambda T: torch.ones(T, T), 8, keep=True, T=T)] == [[]] * 8


def test_results_not_asked_to_be_kept_are_compared_with_nothing() -> None:
    CACHE.clear()
    assert [item["shares"] for item in _request(_memoised, 3, keep=False)] == [[], [], []]


def _quietly(make: Callable[[torch.Tensor], Any]) -> Callable[[torch.Tensor], Any]:
    """torch warns that these layouts are in beta; the test is not about the warning."""
    def made(x: torch.Tensor) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return make(x)
    return made


def _shrunk(t: torch.Tensor, keep: int = 0) -> torch.Tensor:
    t.untyped_storage().resize_(keep)
    return t


def _served_value(function: Callable[..., Any], grads: list[str]) -> dict[str, Any]:
    module = types.ModuleType("submission")
    module.f = function  # type: ignore[attr-defined]
    arguments, blobs = protocol.encode(((torch.ones(3, 2, requires_grad=bool(grads)),), {}))
    call = {"function": "f", "arguments": arguments, "grads": grads, "grad_output": None, "module": "",
            "uses": [], "keep": False}
    served = Served(module, Output(learner_namespace(), 100), run_directly, [], None, arena_copies=True)
    return served.call(call, [bytearray(blob) for blob in blobs], [])


@pytest.mark.parametrize("grads", [[], ["0"]], ids=["no gradient", "a gradient asked for"])
@pytest.mark.parametrize(("function", "named"), [
    pytest.param(_quietly(lambda x: x.to_sparse()), "a torch.sparse_coo tensor", id="sparse"),
    pytest.param(_quietly(lambda x: (x + 1, x.to_sparse_csr())), "a torch.sparse_csr tensor",
                 id="sparse CSR in a tuple"),
    pytest.param(_quietly(lambda x: x.detach().to_mkldnn()), "a torch._mkldnn tensor", id="mkldnn"),
    pytest.param(_quietly(lambda x: torch.nested.nested_tensor([x[0], x[1, :1]])), "a nested tensor", id="nested"),
    pytest.param(_quietly(lambda x: torch.quantize_per_tensor(x.detach(), 0.1, 0, torch.qint8)),
                 "a torch.qint8 tensor; dequantize it", id="quantized"),
    pytest.param(lambda x: x * 1j, "a torch.complex64 tensor; use float, int or bool", id="complex"),
    pytest.param(lambda x: _shrunk(x * 2), "a tensor whose storage was shrunk", id="storage resized to nothing"),
    pytest.param(lambda x: _shrunk(x * 2, keep=20), "a tensor whose storage was shrunk", id="storage resized short"),
])
def test_a_result_with_no_plain_memory_is_a_value_the_grader_cannot_read(
    function: Callable[..., Any], named: str, grads: list[str]
) -> None:
    # These used to escape the worker as an exception and end it: the learner read "your code ended the worker
    # process (... must not call os._exit)".
    reply = _served_value(function, grads)
    assert reply["raised"] is None
    assert named in reply["value"]["opaque"]
    assert reply["value"]["opaque"].startswith("unencodable result")
    assert (reply["backward_error"] is not None) == bool(grads)


def test_a_sparse_gradient_is_a_backward_error_not_a_dead_worker() -> None:
    reply = _served_value(lambda x: torch.nn.functional.embedding(torch.tensor([0, 1]), x, sparse=True).sum(0), ["0"])
    assert reply["grads"] == {"0": None}
    assert "a torch.sparse_coo tensor" in reply["backward_error"]
