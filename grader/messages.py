"""Every message between the judge and the worker, as typed, frozen models.

Two channels cross the boundary. The template's control socket carries one JSON datagram per message:
`ForkRequest` from the judge; `TemplateReady`, `Forked` and `ChildExited` from the template. A child's job
socket carries frames (grader.protocol): `LoadRequest` and `CallsRequest` from the judge; `Loaded`,
`CallsReply`, `TooLarge`, `TimedOut` and `Tampered` from the child. The judge builds requests only as these models
(`to_wire`) and reads every reply only through `from_wire`, which refuses a message with a missing, unknown or
mistyped field (ProtocolError): nothing read from the worker falls back to a default.

The worker side builds the same wire dicts by hand (grader/sandboxed/). It runs beside the learner's code, and
everything it does after the submission exists is C code or its own private module copy (docs/engine.md,
"Trust"); this module, with its Python validation, stays on the trusted side and is never loaded in the
sandbox. The worker always sends every field, so the strict parse here checks the worker as well. Each message's
`FIELDS` is derived from its dataclass (`wire`), and tests/grader/test_wire_schema.py reads the worker's source to
prove that every dict it sends and every field it reads is exactly those.

Values (results, gradients, arguments) stay encoded trees (grader.protocol.Encoder) inside these messages;
grader.protocol.Decoder validates and rebuilds them with the frame's blobs. Frozen dataclasses with hand-written
checks, not a model library: parsing a reply costs about what decoding its JSON costs (10-15 microseconds per call
result on a busy 2-core machine, timeit over a 12-result `CallsReply`), a few milliseconds per grading.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeAlias, TypeVar

from grader.calls import ExceptionInfo, TracebackLine
from grader.protocol import Arena, ProtocolError

Tree: TypeAlias = Any  # an encoded value (grader.protocol): checked when it is decoded, with its blobs
Message = TypeVar("Message", bound=type)


def wire(*, op: bool = True, extra: tuple[str, ...] = ()) -> Callable[[Message], Message]:
    """Class decorator: `FIELDS`, the names a message carries on the wire, derived from its dataclass fields, plus
    `op` when the message has one and the `extra` names its `to_wire` adds (a request's arena). One source for the
    schema: a field added to the dataclass is on the wire, and `from_wire` refuses a message without it."""

    def derive(cls: Message) -> Message:
        names = [field.name for field in dataclasses.fields(cls)]
        cls.FIELDS = frozenset([*names, *(("op",) if op else ()), *extra])  # type: ignore[attr-defined]
        return cls

    return derive


# ------------------------------------------------------------------------------------------- field checks


def _fields(message: Any, kind: str, names: frozenset[str]) -> Mapping[str, Any]:
    """`message` as a dict with exactly the fields `names` (its `op`, if any, checked by the caller)."""
    if type(message) is not dict:
        raise ProtocolError(f"{kind}: expected an object, got {type(message).__name__}")
    if message.keys() != names:  # a set comparison, no copy
        keys = frozenset(message)
        missing, unknown = sorted(names - keys), sorted(str(key)[:40] for key in keys - names)
        raise ProtocolError(f"{kind}: missing fields {missing}, unknown fields {unknown}")
    return message


def _op(message: Mapping[str, Any], kind: str, op: str) -> None:
    if message["op"] != op:
        raise ProtocolError(f"{kind}: op {str(message['op'])[:40]!r}, expected {op!r}")


def _bool(value: Any, name: str) -> bool:
    if type(value) is not bool:
        raise ProtocolError(f"{name} must be true or false")
    return value


def _int(value: Any, name: str) -> int:
    if type(value) is not int:
        raise ProtocolError(f"{name} must be an integer")
    return value


def _number(value: Any, name: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        raise ProtocolError(f"{name} must be a finite number >= 0")
    return float(value)


def _str(value: Any, name: str) -> str:
    if type(value) is not str:
        raise ProtocolError(f"{name} must be a string")
    return value


def _optional_str(value: Any, name: str) -> str | None:
    return None if value is None else _str(value, name)


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if type(value) is not list or any(type(item) is not str for item in value):
        raise ProtocolError(f"{name} must be a list of strings")
    return tuple(value)


def _positions(value: Any, name: str) -> tuple[int, ...]:
    if type(value) is not list or any(type(item) is not int or item < 0 for item in value):
        raise ProtocolError(f"{name} must be a list of integers >= 0")
    return tuple(value)


# ------------------------------------------------------------------------------- the template's channel


@wire()
@dataclass(frozen=True)
class ForkRequest:
    """Judge -> template: fork a child for the job socket sent with this datagram. `ahead`: the child is forked
    before its submission exists, and warms itself up while it waits."""

    ahead: bool
    FIELDS: ClassVar[frozenset[str]]

    def to_wire(self) -> dict[str, Any]:
        return {"op": "fork", "ahead": self.ahead}


@wire()
@dataclass(frozen=True)
class _Signal:
    """A message that is nothing but its `op`."""

    OP: ClassVar[str]
    FIELDS: ClassVar[frozenset[str]]

    @classmethod
    def from_wire(cls, message: Any) -> Self:
        _op(_fields(message, cls.OP, cls.FIELDS), cls.OP, cls.OP)
        return cls()


@dataclass(frozen=True)
class TemplateReady(_Signal):
    """Template -> judge, once: torch is imported and warm."""

    OP: ClassVar[str] = "ready"


@wire()
@dataclass(frozen=True)
class Forked:
    """Template -> judge: the child exists. `pid`: its pid inside the sandbox (the judge finds its host pid)."""

    pid: int
    FIELDS: ClassVar[frozenset[str]]

    @classmethod
    def from_wire(cls, message: Any) -> Forked:
        fields = _fields(message, "forked", cls.FIELDS)
        _op(fields, "forked", "forked")
        return cls(pid=_int(fields["pid"], "pid"))


@wire()
@dataclass(frozen=True)
class ChildExited:
    """Template -> judge, the moment its child is reaped: how it ended, and what it used (rusage)."""

    exit_code: int
    cpu_s: float
    max_rss_kb: int  # peak resident memory, pages shared with the template included (the benchmark reports it)
    FIELDS: ClassVar[frozenset[str]]

    @classmethod
    def from_wire(cls, message: Any) -> ChildExited:
        fields = _fields(message, "child exited", cls.FIELDS)
        _op(fields, "child exited", "exited")
        return cls(exit_code=_int(fields["exit_code"], "exit_code"),
                   cpu_s=_number(fields["cpu_s"], "cpu_s"), max_rss_kb=_int(fields["max_rss_kb"], "max_rss_kb"))


# ------------------------------------------------------------------------------------ a child's channel


@wire()
@dataclass(frozen=True)
class LoadRequest:
    """Judge -> child, once: the submission and everything it runs under. `key` (hex) signs the child's replies;
    `modules`: sources importable beside it (a problem's helpers.py); `banned_calls`: dotted names of library
    functions replaced, before it loads, by one that refuses; `processes_capped`: the child's own cgroup caps its
    processes (pids.max), so the child leaves RLIMIT_NPROC alone (grader.sandboxed.rlimits.child_rlimits says why)."""

    code: str
    seed: int
    limits: Mapping[str, Any]  # grader.limits.Limits.model_dump()
    modules: Mapping[str, str]
    banned_calls: tuple[str, ...]
    key: str
    processes_capped: bool
    FIELDS: ClassVar[frozenset[str]]

    def to_wire(self) -> dict[str, Any]:
        return {"op": "load", "code": self.code, "seed": self.seed, "limits": dict(self.limits),
                "modules": dict(self.modules), "banned_calls": list(self.banned_calls), "key": self.key,
                "processes_capped": self.processes_capped}


EXCEPTION_FIELDS = frozenset({"type", "mro", "message", "traceback"})


def exception_from_wire(message: Any) -> ExceptionInfo:
    """An exception the learner's code raised, as the worker summarised it (never the object itself):
    `{"type", "mro": [the class and its bases, by name], "message", "traceback": [[line, function, text]]}`,
    the traceback's last frames inside the submission."""
    fields = _fields(message, "exception", EXCEPTION_FIELDS)
    entries = fields["traceback"]
    if type(entries) is not list:
        raise ProtocolError("exception traceback must be a list")
    traceback = []
    for entry in entries:
        if not (type(entry) is list and len(entry) == 3):
            raise ProtocolError("a traceback entry must be [line, function, text]")
        traceback.append(TracebackLine(_int(entry[0], "traceback line"), _str(entry[1], "traceback function"),
                                       _str(entry[2], "traceback text")))
    return ExceptionInfo(type=_str(fields["type"], "exception type"), ancestry=_strings(fields["mro"], "exception mro"),
                         message=_str(fields["message"], "exception message"), traceback=tuple(traceback))


def _optional_exception(value: Any) -> ExceptionInfo | None:
    return None if value is None else exception_from_wire(value)


@wire()
@dataclass(frozen=True)
class Loaded:
    """Child -> judge: the submission loaded (`functions`: the callables it defines) or raised (`raised`).
    `output`: what loading printed."""

    ok: bool
    functions: tuple[str, ...]
    raised: ExceptionInfo | None
    output: str
    FIELDS: ClassVar[frozenset[str]]

    @classmethod
    def from_wire(cls, message: Any) -> Loaded:
        fields = _fields(message, "loaded", cls.FIELDS)
        _op(fields, "loaded", "loaded")
        loaded = cls(ok=_bool(fields["ok"], "ok"), functions=_strings(fields["functions"], "functions"),
                     raised=_optional_exception(fields["raised"]), output=_str(fields["output"], "output"))
        if loaded.ok == (loaded.raised is not None):
            raise ProtocolError("loaded: `raised` must be set exactly when `ok` is false")
        return loaded


@wire(op=False)
@dataclass(frozen=True)
class RequestedCall:
    """One call of a learner's function. `arguments`: the encoded `((args...), {kwargs})`; `grads`: the argument
    keys ("0", "1", ... or keyword names) to return vector-Jacobian products for, with `grad_output` as the
    cotangent when the check chose one.

    `module`: when not empty, `function` is one of that module's instead, a module of the problem's sent with the
    load request (its helpers.py), run on the learner's thread like the learner's code and handed, before its
    arguments, a dict of the learner's functions named in `uses`: a run whose calls feed each other goes to the
    worker once instead of once a step.

    `keep`: the worker holds this call's result until the request ends, and each later call of the request reports
    whether its result shares storage with it (`CallOutcome.shares`): a function promised to return new memory on
    every call, not a memoised tensor, is held to it by the worker's fact, not by code running beside the
    learner's."""

    function: str
    arguments: Tree
    grads: tuple[str, ...] = ()
    grad_output: Tree | None = None
    module: str = ""
    uses: tuple[str, ...] = ()
    keep: bool = False
    FIELDS: ClassVar[frozenset[str]]

    def to_wire(self) -> dict[str, Any]:
        return {"function": self.function, "arguments": self.arguments, "grads": list(self.grads),
                "grad_output": self.grad_output, "module": self.module, "uses": list(self.uses), "keep": self.keep}


@wire(extra=("arena",))
@dataclass(frozen=True)
class CallsRequest:
    """Judge -> child: calls to make in order. Their tensors travel in an arena (grader.protocol.Arena), whose
    size and blob table go with the frame."""

    calls: tuple[RequestedCall, ...]
    FIELDS: ClassVar[frozenset[str]]

    def to_wire(self, arena: Arena | None) -> dict[str, Any]:
        size, table = (arena.size, arena.table()) if arena is not None else (0, [])
        return {"op": "calls", "calls": [call.to_wire() for call in self.calls],
                "arena": {"size": size, "blobs": table}}


@wire(op=False)
@dataclass(frozen=True)
class CallOutcome:
    """What one call did. Exactly one of: `missing` (no such function), `raised`, or a `value`.

    `grads`: argument key -> encoded gradient (None: no gradient reached it); `backward_error`: why backward()
    failed, when gradients were asked for; `grad_output`: the cotangent the worker chose, when the check did
    not give one. `mutated`: arguments whose shape, strides, storage or version changed (bytes written to an
    argument the judge sees in its own arena); `aliased`: arguments a returned tensor shares memory with;
    `shares`: the earlier calls of the same request, by position, that were asked to `keep` their result and whose
    result a returned tensor shares memory with.
    `duration_ms`: the learner's time in the call, as the worker measured it: its wall time less the time the
    learner's thread waited for a CPU other processes held (what the call limit and the budgets count)."""

    value: Tree = None
    raised: ExceptionInfo | None = None
    missing: bool = False
    grads: Mapping[str, Tree | None] | None = None
    backward_error: str | None = None
    grad_output: Tree | None = None
    mutated: tuple[str, ...] = ()
    aliased: tuple[str, ...] = ()
    shares: tuple[int, ...] = ()
    output: str = ""
    duration_ms: float = 0.0
    FIELDS: ClassVar[frozenset[str]]

    @classmethod
    def from_wire(cls, message: Any) -> CallOutcome:
        fields = _fields(message, "call result", cls.FIELDS)
        grads = fields["grads"]
        if type(grads) is not dict or any(type(key) is not str for key in grads):
            raise ProtocolError("grads must be an object keyed by argument")
        return cls(value=fields["value"], raised=_optional_exception(fields["raised"]),
                   missing=_bool(fields["missing"], "missing"), grads=grads,
                   backward_error=_optional_str(fields["backward_error"], "backward_error"),
                   grad_output=fields["grad_output"], mutated=_strings(fields["mutated"], "mutated"),
                   aliased=_strings(fields["aliased"], "aliased"), shares=_positions(fields["shares"], "shares"),
                   output=_str(fields["output"], "output"),
                   duration_ms=_number(fields["duration_ms"], "duration_ms"))


@wire()
@dataclass(frozen=True)
class CallsReply:
    """Child -> judge: one reply per call of the request, in order."""

    results: tuple[CallOutcome, ...]
    FIELDS: ClassVar[frozenset[str]]

    @classmethod
    def from_wire(cls, message: Any) -> CallsReply:
        fields = _fields(message, "results", cls.FIELDS)
        _op(fields, "results", "results")
        if type(fields["results"]) is not list:
            raise ProtocolError("results must be a list")
        return cls(results=tuple(CallOutcome.from_wire(item) for item in fields["results"]))


@wire()
@dataclass(frozen=True)
class TooLarge:
    """Child -> judge, instead of `CallsReply`: the results' tensors total `size` bytes, over the message cap."""

    size: int
    FIELDS: ClassVar[frozenset[str]]

    @classmethod
    def from_wire(cls, message: Any) -> TooLarge:
        fields = _fields(message, "too large", cls.FIELDS)
        _op(fields, "too large", "too_large")
        return cls(size=_int(fields["size"], "size"))


@dataclass(frozen=True)
class TimedOut(_Signal):
    """Child -> judge, instead of `CallsReply`: one of the calls did not return within the call limit (the
    child's own clock). The learner's thread is still running it; the child serves nothing more and waits to be
    killed, so that the judge can first ask which line was running."""

    OP: ClassVar[str] = "call_timed_out"


@wire()
@dataclass(frozen=True)
class Tampered:
    """Child -> judge, instead of `Loaded` or `CallsReply`: the learner's code changed torch for the worker's own
    operations too (a kernel registered for an operator the worker uses, a mode left on the worker's thread, a
    decoded argument that is not the judge's memory). `what` names the change. The child serves nothing more."""

    what: str
    FIELDS: ClassVar[frozenset[str]]

    @classmethod
    def from_wire(cls, message: Any) -> Tampered:
        fields = _fields(message, "tampered", cls.FIELDS)
        _op(fields, "tampered", "tampered")
        return cls(what=_str(fields["what"], "what")[:500])


Reply: TypeAlias = Loaded | CallsReply | TooLarge | TimedOut | Tampered
_REPLIES: dict[str, type[Loaded] | type[CallsReply] | type[TooLarge] | type[TimedOut] | type[Tampered]] = {
    "loaded": Loaded, "results": CallsReply, "too_large": TooLarge, "call_timed_out": TimedOut,
    "tampered": Tampered}


def reply_from_wire(message: Any) -> Reply:
    """A child's reply, whichever it is (by its `op`); ProtocolError for anything else."""
    op = message.get("op") if type(message) is dict else None
    kind = _REPLIES.get(op) if type(op) is str else None
    if kind is None:
        raise ProtocolError(f"a reply with op {str(op)[:40]!r}")
    return kind.from_wire(message)


ControlMessage: TypeAlias = TemplateReady | Forked | ChildExited

__all__ = [
    "RequestedCall",
    "CallOutcome",
    "CallsReply",
    "TimedOut",
    "CallsRequest",
    "ChildExited",
    "ControlMessage",
    "ForkRequest",
    "LoadRequest",
    "Loaded",
    "Reply",
    "TemplateReady",
    "Tampered",
    "TooLarge",
    "Forked",
    "exception_from_wire",
    "reply_from_wire",
]
