"""What one call of a learner's function produced, as the judge sees it, and the exceptions around it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from grader.describe import describe
from grader.errors import GradingError


@dataclass(frozen=True)
class TracebackLine:
    line: int
    function: str
    text: str


@dataclass(frozen=True)
class ExceptionInfo:
    """An exception raised by the learner's code, as the worker summarised it (never the object itself)."""

    type: str
    ancestry: tuple[str, ...]  # the exception class and its bases, by name
    message: str
    traceback: tuple[TracebackLine, ...] = ()

    def is_a(self, *names: str) -> bool:
        return any(name in self.ancestry for name in names)

    @property
    def line(self) -> int | None:
        return self.traceback[-1].line if self.traceback else None

    def summary(self) -> str:
        where = f" (line {self.line} of your code)" if self.line is not None else ""
        message = self.message if len(self.message) <= 500 else self.message[:500] + "..."
        return f"{self.type}: {message}{where}" if message else f"{self.type}{where}"


@dataclass
class CallResult:
    """Everything the judge learned from one call: value or exception, gradients, in-place edits, aliasing.

    `call` describes the call for messages, e.g. "moco_loss(query=float32[2, 3], ..., temperature=0.1)"; the
    judge passes a function that writes it, so the description is only built when a message needs it."""

    function: str
    describe_call: str | Callable[[], str] = field(repr=False)
    value: Any = None
    raised: ExceptionInfo | None = None
    grads: dict[str, Any] = field(default_factory=dict)
    mutated: tuple[str, ...] = ()
    aliased: tuple[str, ...] = ()
    shares: tuple[int, ...] = ()  # positions of earlier calls of its map(..., keep=True) whose memory it shares
    output: str = ""
    duration_ms: float = 0.0
    backward_error: str | None = None  # why backward() on the result failed, when gradients were asked for
    grad_output: Any = None  # the cotangent the gradients were computed with, when the worker chose it
    arguments: tuple[tuple[Any, ...], dict[str, Any]] | None = None  # what the check passed (for diagnoses)
    encoded: tuple[Any, list[bytes]] | None = None  # the arguments as sent: tree and bytes (a digest keys caches)

    def __init__(self, function: str, call: str | Callable[[], str], value: Any = None,
                 raised: ExceptionInfo | None = None, grads: dict[str, Any] | None = None,
                 mutated: tuple[str, ...] = (), aliased: tuple[str, ...] = (), shares: tuple[int, ...] = (),
                 output: str = "",
                 duration_ms: float = 0.0, backward_error: str | None = None, grad_output: Any = None,
                 arguments: tuple[tuple[Any, ...], dict[str, Any]] | None = None,
                 encoded: tuple[Any, list[bytes]] | None = None) -> None:
        self.function = function
        self.describe_call = call
        self.value = value
        self.raised = raised
        self.grads = grads or {}
        self.mutated = mutated
        self.aliased = aliased
        self.shares = shares
        self.output = output
        self.duration_ms = duration_ms
        self.backward_error = backward_error
        self.grad_output = grad_output
        self.arguments = arguments
        self.encoded = encoded

    @property
    def input_key(self) -> str:
        """A digest of the encoded arguments: equal for equal inputs, in any grading."""
        if self.encoded is None:
            return ""
        tree, blobs = self.encoded
        digest = hashlib.blake2b(repr(tree).encode(), digest_size=16)
        for blob in blobs:
            digest.update(blob)
        return digest.hexdigest()

    @property
    def call(self) -> str:
        if callable(self.describe_call):
            self.describe_call = self.describe_call()
        return self.describe_call

    def unwrap(self) -> Any:
        if self.raised is not None:
            raise SubmissionRaised(self)
        return self.value


class CheckFailed(AssertionError):
    """The learner's code gave a wrong answer; the message says which call, what was expected, what came.

    `call`: the call whose value was wrong, when a helper knows it (a diagnosis may then name the mistake);
    `bare`: the message without the check's generic hint, which a specific diagnosis replaces."""

    def __init__(self, message: str = "", *, call: CallResult | None = None, bare: str | None = None) -> None:
        super().__init__(message)
        self.call = call
        self.bare = message if bare is None else bare


class SubmissionRaised(CheckFailed):
    """The learner's function raised where the check expected a value."""

    def __init__(self, result: CallResult) -> None:
        assert result.raised is not None
        self.result = result
        super().__init__(f"{result.call} raised {result.raised.summary()}")


# What ended a call, as a fact the report carries (never parsed back out of a message).
LimitKind = Literal["time", "total_time", "memory", "output", "processes", "crash", "message_size", "tampering"]
# Of those, the ones that are resource limits proper (the others are a crash or the submission's interference).
RESOURCE_LIMITS: frozenset[str] = frozenset({"time", "total_time", "memory", "output", "processes", "message_size"})


class WorkerLost(GradingError):
    """The worker process died or was killed (time, memory, output or process limit, crash, exit)."""

    def __init__(self, reason: str, *, limit: LimitKind | None = None) -> None:
        self.reason = reason
        self.limit = limit
        super().__init__(reason)


def describe_call(function: str, names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = []
    for index, value in enumerate(args):
        name = names[index] if index < len(names) else f"arg{index}"
        parts.append(f"{name}={describe(value, compact=True)}")
    parts.extend(f"{name}={describe(value, compact=True)}" for name, value in kwargs.items())
    return f"{function}({', '.join(parts)})"
