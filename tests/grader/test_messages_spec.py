"""Specification of grader.messages: every message kind, what a well-formed one parses to, and the exact error
each malformed field gives (the error names the message and the field, so a worker bug is found from the log).

Tables: VALID (wire dict -> model), MALFORMED (kind, wire dict -> ProtocolError message), REQUESTS (model ->
wire dict)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from grader.calls import ExceptionInfo, TracebackLine
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
    Tampered,
    TemplateReady,
    TimedOut,
    TooLarge,
    exception_from_wire,
    reply_from_wire,
    wire,
)
from grader.protocol import Arena, ProtocolError

RAISED: dict[str, Any] = {"type": "ValueError", "mro": ["ValueError", "Exception"], "message": "bad x",
                          "traceback": [[3, "f", "return 1 / x"], [7, "g", "f(0)"]]}
RAISED_INFO = ExceptionInfo(type="ValueError", ancestry=("ValueError", "Exception"), message="bad x",
                            traceback=(TracebackLine(3, "f", "return 1 / x"), TracebackLine(7, "g", "f(0)")))
REPLY: dict[str, Any] = {"value": {"tuple": [1, 2]}, "raised": None, "missing": False, "grads": {"0": None, "x": 5},
                         "backward_error": "no grad", "grad_output": {"list": [1.0]}, "mutated": ["1", "x"],
                         "aliased": ["0"], "shares": [0, 2], "output": "printed\n", "duration_ms": 1.25}
REPLY_MODEL = CallOutcome(value={"tuple": [1, 2]}, raised=None, missing=False, grads={"0": None, "x": 5},
                        backward_error="no grad", grad_output={"list": [1.0]}, mutated=("1", "x"), aliased=("0",),
                        shares=(0, 2), output="printed\n", duration_ms=1.25)
LOADED: dict[str, Any] = {"op": "loaded", "ok": True, "functions": ["f", "g"], "raised": None, "output": "hello"}
EXITED: dict[str, Any] = {"op": "exited", "exit_code": -9, "cpu_s": 0.5, "max_rss_kb": 1000}
LONG = "k" * 50  # a field name or op longer than the 40 characters an error quotes


def results(**changes: Any) -> dict[str, Any]:
    return {"op": "results", "results": [dict(REPLY, **changes)]}


# ----------------------------------------------------------------------------------------- well-formed

VALID = [
    pytest.param(TemplateReady.from_wire, {"op": "ready"}, TemplateReady(), id="ready"),
    pytest.param(Forked.from_wire, {"op": "forked", "pid": 12}, Forked(pid=12), id="forked"),
    pytest.param(ChildExited.from_wire, EXITED, ChildExited(exit_code=-9, cpu_s=0.5, max_rss_kb=1000), id="exited"),
    pytest.param(ChildExited.from_wire, dict(EXITED, cpu_s=0), ChildExited(exit_code=-9, cpu_s=0.0, max_rss_kb=1000),
                 id="exited-no-cpu-time"),
    pytest.param(reply_from_wire, LOADED, Loaded(ok=True, functions=("f", "g"), raised=None, output="hello"),
                 id="loaded"),
    pytest.param(reply_from_wire, dict(LOADED, ok=False, functions=[], raised=RAISED),
                 Loaded(ok=False, functions=(), raised=RAISED_INFO, output="hello"), id="failed-load"),
    pytest.param(reply_from_wire, {"op": "results", "results": [REPLY]}, CallsReply((REPLY_MODEL,)), id="results"),
    pytest.param(reply_from_wire, {"op": "results", "results": []}, CallsReply(()), id="no-results"),
    pytest.param(reply_from_wire, results(raised=RAISED, backward_error=None, duration_ms=0),
                 CallsReply((CallOutcome(value={"tuple": [1, 2]}, raised=RAISED_INFO, grads={"0": None, "x": 5},
                                        grad_output={"list": [1.0]}, mutated=("1", "x"), aliased=("0",),
                                        shares=(0, 2), output="printed\n"),)), id="raised"),
    pytest.param(reply_from_wire, {"op": "too_large", "size": 7}, TooLarge(size=7), id="too-large"),
    pytest.param(reply_from_wire, {"op": "call_timed_out"}, TimedOut(), id="timed-out"),
    pytest.param(reply_from_wire, {"op": "tampered", "what": "a kernel registered for aten::view"},
                 Tampered(what="a kernel registered for aten::view"), id="tampered"),
    pytest.param(reply_from_wire, {"op": "tampered", "what": "x" * 600}, Tampered(what="x" * 500),
                 id="tampered-capped"),
    pytest.param(exception_from_wire, dict(RAISED, traceback=[]),
                 ExceptionInfo(type="ValueError", ancestry=("ValueError", "Exception"), message="bad x"),
                 id="exception-without-traceback"),
]


@pytest.mark.parametrize(("parse", "wire", "model"), VALID)
def test_a_well_formed_message_parses_to_exactly_its_model(parse: Any, wire: dict[str, Any], model: Any) -> None:
    parsed = parse(wire)
    assert parsed == model
    assert type(parsed) is type(model)


def test_every_field_of_a_call_reply_is_read_with_its_type() -> None:
    (reply,) = CallsReply.from_wire({"op": "results", "results": [REPLY]}).results
    assert (reply.backward_error, reply.mutated, reply.aliased, reply.shares, reply.output) == (
        "no grad", ("1", "x"), ("0",), (0, 2), "printed\n")
    assert type(reply.duration_ms) is float and type(reply.mutated) is tuple and type(reply.shares) is tuple


def test_an_integer_duration_becomes_a_float() -> None:
    (reply,) = CallsReply.from_wire(results(duration_ms=2)).results
    assert reply.duration_ms == 2.0 and type(reply.duration_ms) is float


# ------------------------------------------------------------------------------------------- malformed

MALFORMED = [
    # the object itself
    pytest.param(reply_from_wire, [], "a reply with op 'None'", id="reply-not-an-object"),
    pytest.param(reply_from_wire, {"results": []}, "a reply with op 'None'", id="reply-without-op"),
    pytest.param(reply_from_wire, {"op": "verdict"}, "a reply with op 'verdict'", id="reply-unknown-op"),
    pytest.param(reply_from_wire, {"op": ["loaded"]}, "a reply with op \"['loaded']\"", id="reply-op-not-a-string"),
    pytest.param(reply_from_wire, {"op": "x" * 50}, f"a reply with op '{'x' * 40}'", id="reply-op-cut-at-40"),
    pytest.param(reply_from_wire, {"op": 7}, "a reply with op '7'", id="reply-op-a-number"),
    pytest.param(TemplateReady.from_wire, [], "ready: expected an object, got list", id="ready-not-an-object"),
    pytest.param(TemplateReady.from_wire, {"op": "go"}, "ready: op 'go', expected 'ready'", id="ready-wrong-op"),
    pytest.param(TemplateReady.from_wire, {"op": "ready", "x": 1},
                 "ready: missing fields [], unknown fields ['x']", id="ready-extra-field"),
    pytest.param(Forked.from_wire, "forked", "forked: expected an object, got str", id="forked-not-an-object"),
    pytest.param(Forked.from_wire, {"op": "fork", "pid": 1}, "forked: op 'fork', expected 'forked'", id="forked-op"),
    pytest.param(Forked.from_wire, {"op": LONG, "pid": 1}, f"forked: op '{'k' * 40}', expected 'forked'",
                 id="forked-op-cut-at-40"),
    pytest.param(Forked.from_wire, {"op": "forked"}, "forked: missing fields ['pid'], unknown fields []",
                 id="forked-without-pid"),
    pytest.param(Forked.from_wire, {"op": "forked", "pid": 1, LONG: 0, "b": 0},
                 f"forked: missing fields [], unknown fields ['b', '{'k' * 40}']", id="forked-unknown-fields"),
    pytest.param(Forked.from_wire, {"op": "forked", "pid": "1"}, "pid must be an integer", id="forked-pid-str"),
    pytest.param(Forked.from_wire, {"op": "forked", "pid": 1.0}, "pid must be an integer", id="forked-pid-float"),
    pytest.param(ChildExited.from_wire, dict(EXITED, op="forked"), "child exited: op 'forked', expected 'exited'",
                 id="exited-op"),
    pytest.param(ChildExited.from_wire, {"op": "exited"},
                 "child exited: missing fields ['cpu_s', 'exit_code', 'max_rss_kb'], unknown fields []",
                 id="exited-empty"),
    pytest.param(ChildExited.from_wire, dict(EXITED, exit_code=None), "exit_code must be an integer",
                 id="exited-exit-code"),
    pytest.param(ChildExited.from_wire, dict(EXITED, cpu_s=-0.5), "cpu_s must be a finite number >= 0",
                 id="exited-negative-cpu"),
    pytest.param(ChildExited.from_wire, dict(EXITED, cpu_s=float("inf")), "cpu_s must be a finite number >= 0",
                 id="exited-infinite-cpu"),
    pytest.param(ChildExited.from_wire, dict(EXITED, cpu_s="1"), "cpu_s must be a finite number >= 0",
                 id="exited-cpu-str"),
    pytest.param(ChildExited.from_wire, dict(EXITED, cpu_s=True), "cpu_s must be a finite number >= 0",
                 id="exited-cpu-bool"),
    pytest.param(ChildExited.from_wire, dict(EXITED, max_rss_kb=1.5), "max_rss_kb must be an integer",
                 id="exited-rss"),
    pytest.param(ChildExited.from_wire, dict(EXITED, max_rss_kb=True), "max_rss_kb must be an integer",
                 id="exited-rss-bool"),
    pytest.param(TooLarge.from_wire, {"op": "too large", "size": 1}, "too large: op 'too large', expected 'too_large'",
                 id="too-large-op"),
    pytest.param(TooLarge.from_wire, {"op": "too_large"}, "too large: missing fields ['size'], unknown fields []",
                 id="too-large-without-size"),
    pytest.param(TooLarge.from_wire, {"op": "too_large", "size": "big"}, "size must be an integer",
                 id="too-large-size"),
    pytest.param(Tampered.from_wire, {"op": "tampered"}, "tampered: missing fields ['what'], unknown fields []",
                 id="tampered-without-what"),
    pytest.param(Tampered.from_wire, {"op": "tamper", "what": ""}, "tampered: op 'tamper', expected 'tampered'",
                 id="tampered-op"),
    pytest.param(Tampered.from_wire, {"op": "tampered", "what": 3}, "what must be a string", id="tampered-what"),
    pytest.param(TimedOut.from_wire, {"op": "call_timed_out", "call": 1},
                 "call_timed_out: missing fields [], unknown fields ['call']", id="timed-out-extra"),
    # loaded
    pytest.param(Loaded.from_wire, dict(LOADED, op="load"), "loaded: op 'load', expected 'loaded'", id="loaded-op"),
    pytest.param(Loaded.from_wire, {"op": "loaded"},
                 "loaded: missing fields ['functions', 'ok', 'output', 'raised'], unknown fields []",
                 id="loaded-empty"),
    pytest.param(Loaded.from_wire, dict(LOADED, ok=1), "ok must be true or false", id="loaded-ok-int"),
    pytest.param(Loaded.from_wire, dict(LOADED, functions="f"), "functions must be a list of strings",
                 id="loaded-functions-str"),
    pytest.param(Loaded.from_wire, dict(LOADED, functions=["f", 2]), "functions must be a list of strings",
                 id="loaded-functions-item"),
    pytest.param(Loaded.from_wire, dict(LOADED, output=None), "output must be a string", id="loaded-output"),
    pytest.param(Loaded.from_wire, dict(LOADED, ok=False), "loaded: `raised` must be set exactly when `ok` is false",
                 id="loaded-failed-without-exception"),
    pytest.param(Loaded.from_wire, dict(LOADED, raised=RAISED),
                 "loaded: `raised` must be set exactly when `ok` is false", id="loaded-ok-with-exception"),
    # an exception summary
    pytest.param(exception_from_wire, "boom", "exception: expected an object, got str", id="exception-not-an-object"),
    pytest.param(exception_from_wire, {"type": "E"},
                 "exception: missing fields ['message', 'mro', 'traceback'], unknown fields []", id="exception-empty"),
    pytest.param(exception_from_wire, dict(RAISED, type=None), "exception type must be a string", id="exception-type"),
    pytest.param(exception_from_wire, dict(RAISED, mro="E"), "exception mro must be a list of strings",
                 id="exception-mro"),
    pytest.param(exception_from_wire, dict(RAISED, message=1), "exception message must be a string",
                 id="exception-message"),
    pytest.param(exception_from_wire, dict(RAISED, traceback={}), "exception traceback must be a list",
                 id="exception-traceback"),
    pytest.param(exception_from_wire, dict(RAISED, traceback=[[1, "f"]]),
                 "a traceback entry must be [line, function, text]", id="traceback-short"),
    pytest.param(exception_from_wire, dict(RAISED, traceback=["abc"]),
                 "a traceback entry must be [line, function, text]", id="traceback-entry-a-string"),
    pytest.param(exception_from_wire, dict(RAISED, traceback=[[1, "f", "x", "y"]]),
                 "a traceback entry must be [line, function, text]", id="traceback-long"),
    pytest.param(exception_from_wire, dict(RAISED, traceback=[["1", "f", "x"]]), "traceback line must be an integer",
                 id="traceback-line"),
    pytest.param(exception_from_wire, dict(RAISED, traceback=[[1, None, "x"]]),
                 "traceback function must be a string", id="traceback-function"),
    pytest.param(exception_from_wire, dict(RAISED, traceback=[[1, "f", 0]]), "traceback text must be a string",
                 id="traceback-text"),
    pytest.param(Loaded.from_wire, dict(LOADED, ok=False, raised=dict(RAISED, message=None)),
                 "exception message must be a string", id="loaded-exception-checked"),
    # results
    pytest.param(CallsReply.from_wire, {"op": "result", "results": []}, "results: op 'result', expected 'results'",
                 id="results-op"),
    pytest.param(CallsReply.from_wire, {"op": "results"}, "results: missing fields ['results'], unknown fields []",
                 id="results-missing"),
    pytest.param(CallsReply.from_wire, {"op": "results", "results": {}}, "results must be a list",
                 id="results-not-a-list"),
    pytest.param(CallsReply.from_wire, {"op": "results", "results": [[]]}, "call result: expected an object, got list",
                 id="result-not-an-object"),
    pytest.param(CallsReply.from_wire, {"op": "results", "results": [{"value": 1}]},
                 "call result: missing fields ['aliased', 'backward_error', 'duration_ms', 'grad_output', 'grads', "
                 "'missing', 'mutated', 'output', 'raised', 'shares'], unknown fields []", id="result-only-a-value"),
    pytest.param(CallsReply.from_wire, results(grads=[]), "grads must be an object keyed by argument",
                 id="grads-a-list"),
    pytest.param(CallsReply.from_wire, results(grads=None), "grads must be an object keyed by argument",
                 id="grads-none"),
    pytest.param(CallsReply.from_wire, results(grads={1: None}), "grads must be an object keyed by argument",
                 id="grads-int-key"),
    pytest.param(CallsReply.from_wire, results(missing=None), "missing must be true or false", id="missing"),
    pytest.param(CallsReply.from_wire, results(backward_error=1), "backward_error must be a string",
                 id="backward-error"),
    pytest.param(CallsReply.from_wire, results(mutated="0"), "mutated must be a list of strings", id="mutated"),
    pytest.param(CallsReply.from_wire, results(aliased=[0]), "aliased must be a list of strings", id="aliased"),
    pytest.param(CallsReply.from_wire, results(shares=[-1]), "shares must be a list of integers >= 0",
                 id="shares-negative"),
    pytest.param(CallsReply.from_wire, results(shares=["0"]), "shares must be a list of integers >= 0",
                 id="shares-not-integers"),
    pytest.param(CallsReply.from_wire, results(shares=[True]), "shares must be a list of integers >= 0",
                 id="shares-a-bool"),
    pytest.param(CallsReply.from_wire, results(shares=0), "shares must be a list of integers >= 0",
                 id="shares-not-a-list"),
    pytest.param(CallsReply.from_wire, results(output=b"x"), "output must be a string", id="output"),
    pytest.param(CallsReply.from_wire, results(duration_ms=None), "duration_ms must be a finite number >= 0",
                 id="duration-none"),
    pytest.param(CallsReply.from_wire, results(duration_ms=-1), "duration_ms must be a finite number >= 0",
                 id="duration-negative"),
    pytest.param(CallsReply.from_wire, results(duration_ms=float("nan")), "duration_ms must be a finite number >= 0",
                 id="duration-nan"),
    pytest.param(CallsReply.from_wire, results(raised={"type": "E"}),
                 "exception: missing fields ['message', 'mro', 'traceback'], unknown fields []", id="result-exception"),
]


@pytest.mark.parametrize(("parse", "wire", "message"), MALFORMED)
def test_a_malformed_message_names_what_is_wrong(parse: Any, wire: Any, message: str) -> None:
    with pytest.raises(ProtocolError, match=f"^{re.escape(message)}$"):
        parse(wire)


# --------------------------------------------------------------------------------------------- requests


class TinyArena(Arena):
    """An arena's size and table without a memfd (to_wire reads nothing else)."""

    def __init__(self) -> None:
        super().__init__(blobs=[b"abc", b"de"], offsets=[(0, 3), (3, 2)], memory=None)


REQUESTS = [
    pytest.param(lambda: ForkRequest(ahead=False).to_wire(), {"op": "fork", "ahead": False}, id="fork"),
    pytest.param(lambda: LoadRequest(code="def f(): pass", seed=3, limits={"memory_mb": 5},
                                     modules={"helpers": "x = 1"}, banned_calls=("torch.load",), key="ab",
                                     processes_capped=True).to_wire(),
                 {"op": "load", "code": "def f(): pass", "seed": 3, "limits": {"memory_mb": 5},
                  "modules": {"helpers": "x = 1"}, "banned_calls": ["torch.load"], "key": "ab",
                  "processes_capped": True}, id="load"),
    pytest.param(lambda: LoadRequest(code="", seed=0, limits={}, modules={}, banned_calls=(), key="",
                                     processes_capped=False).to_wire(),
                 {"op": "load", "code": "", "seed": 0, "limits": {}, "modules": {}, "banned_calls": [], "key": "",
                  "processes_capped": False}, id="load-uncapped"),
    pytest.param(lambda: CallsRequest((RequestedCall("f", {"tuple": []}, grads=("0", "x"), grad_output=1.0),)).to_wire(
                     TinyArena()),
                 {"op": "calls", "calls": [{"function": "f", "arguments": {"tuple": []}, "grads": ["0", "x"],
                                            "grad_output": 1.0, "module": "", "uses": [], "keep": False}],
                  "arena": {"size": 5, "blobs": [[0, 3], [3, 2]]}},
                 id="calls-with-an-arena"),
    pytest.param(lambda: CallsRequest(
                     (RequestedCall("run", {"tuple": []}, module="helpers", uses=("f", "g")),)).to_wire(None),
                 {"op": "calls", "calls": [{"function": "run", "arguments": {"tuple": []}, "grads": [],
                                            "grad_output": None, "module": "helpers", "uses": ["f", "g"],
                                            "keep": False}],
                  "arena": {"size": 0, "blobs": []}},
                 id="a-helper-handed-learner-functions"),
    pytest.param(lambda: CallsRequest((RequestedCall("f", {"tuple": []}, keep=True),)).to_wire(None),
                 {"op": "calls", "calls": [{"function": "f", "arguments": {"tuple": []}, "grads": [],
                                            "grad_output": None, "module": "", "uses": [], "keep": True}],
                  "arena": {"size": 0, "blobs": []}},
                 id="calls-whose-results-are-kept"),
    pytest.param(lambda: CallsRequest(()).to_wire(None),
                 {"op": "calls", "calls": [], "arena": {"size": 0, "blobs": []}},
                 id="calls-without-an-arena"),
]


@pytest.mark.parametrize(("wire", "expected"), REQUESTS)
def test_a_request_goes_out_as_exactly_this_dict(wire: Callable[[], dict[str, Any]], expected: dict[str, Any]) -> None:
    assert wire() == expected  # built here, not at collection: mutmut maps a mutant to the tests that run it


def test_a_load_request_sends_plain_containers() -> None:
    wire = LoadRequest(code="", seed=0, limits={}, modules={}, banned_calls=("a",), key="",
                       processes_capped=False).to_wire()
    assert (type(wire["limits"]), type(wire["modules"]), type(wire["banned_calls"])) == (dict, dict, list)


# ------------------------------------------------------------------------------------------------ one schema


def test_a_messages_wire_fields_are_its_dataclass_fields_and_its_op() -> None:
    @wire()
    @dataclass(frozen=True)
    class Probe:
        size: int
        name: str = ""
        FIELDS: ClassVar[frozenset[str]]
        NOT_A_FIELD: ClassVar[int] = 3

    assert Probe.FIELDS == frozenset({"op", "size", "name"})


def test_a_message_without_an_op_has_only_its_fields_and_a_request_adds_what_to_wire_adds() -> None:
    @wire(op=False)
    @dataclass(frozen=True)
    class Bare:
        value: int
        FIELDS: ClassVar[frozenset[str]]

    @wire(extra=("arena", "more"))
    @dataclass(frozen=True)
    class Request:
        calls: tuple[int, ...]
        FIELDS: ClassVar[frozenset[str]]

    assert Bare.FIELDS == frozenset({"value"})
    assert Request.FIELDS == frozenset({"op", "calls", "arena", "more"})
    assert wire()(Bare) is Bare  # the decorator hands back the class itself


@pytest.mark.parametrize("request_", [ForkRequest(ahead=True), LoadRequest("x = 1", 3, {}, {}, (), "ab", False),
                                      RequestedCall("f", {"tuple": []}), CallsRequest(())],
                         ids=lambda request: type(request).__name__)
def test_every_request_sends_exactly_its_fields(request_: Any) -> None:
    sent = request_.to_wire(None) if isinstance(request_, CallsRequest) else request_.to_wire()
    assert sent.keys() == type(request_).FIELDS
