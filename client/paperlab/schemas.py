"""The server's JSON, as the client reads it: frozen dataclasses checked field by field on the way in, so an
answer that is not PaperLab's API (a proxy's error page, an older server) is a clear ServerError rather than a
KeyError deep inside the command. The server's own schema is app/schemas.py; unknown fields are ignored, so a
newer server does not break an older client."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, TypeVar, Union

from paperlab.errors import ServerError

T = TypeVar("T")


def parse(cls: type[T], data: object, where: str = "") -> T:
    """`data` as the dataclass `cls`, or ServerError naming the first field that does not fit."""
    if not isinstance(data, dict):
        raise ServerError(f"The server's answer is not what PaperLab sends ({where or cls.__name__}: not an object).")
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = f"{where}.{field.name}" if where else field.name
        if field.name not in data:
            if field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING:
                continue
            raise ServerError(f"The server's answer lacks `{name}`; is this a PaperLab server of a matching version?")
        values[field.name] = _value(hints[field.name], data[field.name], name)
    return cls(**values)


def _value(kind: Any, value: object, where: str) -> Any:
    origin = typing.get_origin(kind)
    if origin in (Union, types.UnionType):
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return None
        return _value(next(option for option in options if option is not type(None)), value, where)
    if origin is list:
        if not isinstance(value, list):
            raise ServerError(f"The server's answer has `{where}` that is not a list.")
        (item,) = typing.get_args(kind)
        return [_value(item, element, f"{where}[{i}]") for i, element in enumerate(value)]
    if origin is dict or kind is dict:
        if not isinstance(value, dict):
            raise ServerError(f"The server's answer has `{where}` that is not an object.")
        return value
    if dataclasses.is_dataclass(kind):
        return parse(kind, value, where)  # type: ignore[arg-type]
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    is_bool_as_int = kind is int and isinstance(value, bool)
    if kind is Any or (isinstance(kind, type) and isinstance(value, kind) and not is_bool_as_int):
        return value
    raise ServerError(f"The server's answer has `{where}` = {value!r}, not a {getattr(kind, '__name__', kind)}.")


@dataclass(frozen=True)
class TokenInfo:
    id: str
    name: str
    prefix: str
    created_at: str
    expires_at: str
    last_used_at: str | None


@dataclass(frozen=True)
class FunctionInfo:
    name: str
    signature: str
    summary: str


@dataclass(frozen=True)
class Problem:
    slug: str
    title: str
    summary: str
    difficulty: str
    tags: list[str]
    functions: list[FunctionInfo]
    check_count: int
    statement: str
    starter: str
    helpers: str = ""
    scratch: str = ""


@dataclass(frozen=True)
class ProblemProgress:
    slug: str
    title: str
    summary: str
    difficulty: str
    check_count: int
    progress: str
    progress_label: str


@dataclass(frozen=True)
class Track:
    slug: str
    title: str
    summary: str
    solved: int
    total: int
    problems: list[ProblemProgress]


@dataclass(frozen=True)
class Catalogue:
    tracks: list[Track]
    others: list[ProblemProgress]


@dataclass(frozen=True)
class CheckResult:
    id: str
    title: str
    group: str
    required: bool
    status: str  # passed | failed | error | skipped
    message: str = ""
    duration_ms: float = 0.0
    output: str = ""
    limit: str | None = None


@dataclass(frozen=True)
class ReportError:
    kind: str  # load | limit | sandbox | grader
    message: str
    line: int | None = None


@dataclass(frozen=True)
class Report:
    problem: str
    solved: bool
    status: str
    checks: list[CheckResult]
    sandbox: str = "bubblewrap"
    duration_ms: float = 0.0
    error: ReportError | None = None
    stopped: bool = False
    experiment: dict[str, Any] | None = None


@dataclass(frozen=True)
class Summary:
    text: str
    tone: str  # passed | failed | error | limit | stopped


@dataclass(frozen=True)
class Submission:
    id: str
    problem: str
    status: str  # queued | running | done | error
    created_at: str
    code: str
    report: Report | None
    summary: Summary | None = None

    @property
    def finished(self) -> bool:
        return self.status in ("done", "error")


@dataclass(frozen=True)
class ScratchFrame:
    where: str
    line: int
    function: str
    text: str


@dataclass(frozen=True)
class ScratchError:
    kind: str  # exception | limit | sandbox
    message: str
    type: str | None = None
    where: str | None = None
    line: int | None = None
    traceback: list[ScratchFrame] = dataclasses.field(default_factory=list)


@dataclass(frozen=True)
class ScratchResult:
    stdout: str
    stderr: str
    error: ScratchError | None
    duration_ms: float
