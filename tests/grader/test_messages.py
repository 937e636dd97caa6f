"""grader.messages: what crosses the judge/worker boundary is typed; a missing, unknown or mistyped field is an
error, never a default."""

from __future__ import annotations

from typing import Any

import pytest

from grader.messages import (
    CallOutcome,
    CallsReply,
    CallsRequest,
    ChildExited,
    Forked,
    ForkRequest,
    Loaded,
    LoadRequest,
    RequestedCall,
    TemplateReady,
    TooLarge,
    reply_from_wire,
)
from grader.protocol import ProtocolError

CALL_REPLY: dict[str, Any] = {"value": 1.5, "raised": None, "missing": False, "grads": {"0": None},
                              "backward_error": None, "grad_output": None, "mutated": ["1"], "aliased": [],
                              "shares": [], "output": "hi", "duration_ms": 0.25}
RAISED = {"type": "ValueError", "mro": ["ValueError", "Exception"], "message": "no", "traceback": [[3, "f", "x"]]}
LOADED: dict[str, Any] = {"op": "loaded", "ok": True, "functions": ["f"], "raised": None, "output": ""}


def test_a_call_reply_reads_every_field() -> None:
    reply = reply_from_wire({"op": "results", "results": [CALL_REPLY]})
    assert reply == CallsReply((CallOutcome(value=1.5, grads={"0": None}, mutated=("1",), output="hi",
                                           duration_ms=0.25),))


def test_an_exception_summary_is_typed_down_to_its_traceback() -> None:
    reply = reply_from_wire({"op": "results", "results": [dict(CALL_REPLY, raised=RAISED)]})
    assert isinstance(reply, CallsReply)
    raised = reply.results[0].raised
    assert raised is not None and raised.ancestry == ("ValueError", "Exception")
    assert (raised.traceback[0].line, raised.traceback[0].function, raised.traceback[0].text) == (3, "f", "x")


@pytest.mark.parametrize("message", [
    pytest.param({"op": "results", "results": [{k: v for k, v in CALL_REPLY.items() if k != "backward_error"}]},
                 id="missing-backward-error"),
    pytest.param({"op": "results", "results": [dict(CALL_REPLY, verdict="passed")]}, id="unknown-field"),
    pytest.param({"op": "results", "results": [dict(CALL_REPLY, duration_ms="fast")]}, id="mistyped-duration"),
    pytest.param({"op": "results", "results": [dict(CALL_REPLY, duration_ms=float("nan"))]}, id="nan-duration"),
    pytest.param({"op": "results", "results": [dict(CALL_REPLY, mutated=[0])]}, id="mutated-not-strings"),
    pytest.param({"op": "results", "results": [dict(CALL_REPLY, grads=[])]}, id="grads-not-an-object"),
    pytest.param({"op": "results", "results": [dict(CALL_REPLY, raised={**RAISED, "traceback": [[1, 2]]})]},
                 id="short-traceback-entry"),
    pytest.param({"op": "results", "results": {}}, id="results-not-a-list"),
    pytest.param({"op": "results"}, id="no-results"),
    pytest.param({"op": "verdict", "results": []}, id="unknown-op"),
    pytest.param({"results": []}, id="no-op"),
    pytest.param({"op": "too_large", "size": "big"}, id="mistyped-size"),
    pytest.param(dict(LOADED, ok=False), id="failed-load-without-exception"),
    pytest.param(dict(LOADED, raised=RAISED), id="loaded-with-exception"),
    pytest.param({k: v for k, v in LOADED.items() if k != "functions"}, id="loaded-without-functions"),
    pytest.param([], id="not-an-object"),
])
def test_a_malformed_reply_is_a_protocol_error(message: Any) -> None:
    with pytest.raises(ProtocolError):
        reply_from_wire(message)


def test_replies_are_told_apart_by_their_op() -> None:
    assert reply_from_wire({"op": "too_large", "size": 7}) == TooLarge(7)
    assert isinstance(reply_from_wire(LOADED), Loaded)


@pytest.mark.parametrize(("kind", "message"), [
    pytest.param(TemplateReady, {"op": "ready"}, id="ready"),
    pytest.param(Forked, {"op": "forked", "pid": 2}, id="forked"),
    pytest.param(ChildExited, {"op": "exited", "exit_code": -9, "cpu_s": 0.5, "max_rss_kb": 1000},
                 id="exited"),
])
def test_control_messages_parse_only_as_their_own_kind(kind: Any, message: dict[str, Any]) -> None:
    assert kind.from_wire(message) is not None
    with pytest.raises(ProtocolError):
        kind.from_wire(dict(message, op="something else"))
    with pytest.raises(ProtocolError):
        kind.from_wire(dict(message, extra=1))


def test_requests_always_send_every_field() -> None:
    # The worker reads requests with plain indexing: a field the judge left out would end the child.
    assert ForkRequest(ahead=True).to_wire() == {"op": "fork", "ahead": True}
    load = LoadRequest(code="", seed=0, limits={}, modules={}, banned_calls=(), key="00", processes_capped=True)
    assert set(load.to_wire()) == {"op", "code", "seed", "limits", "modules", "banned_calls", "key",
                                   "processes_capped"}
    wire = CallsRequest((RequestedCall(function="f", arguments={"tuple": []}),)).to_wire(None)
    assert wire == {"op": "calls", "calls": [{"function": "f", "arguments": {"tuple": []}, "grads": [],
                                              "grad_output": None, "module": "", "uses": [], "keep": False}],
                    "arena": {"size": 0, "blobs": []}}
