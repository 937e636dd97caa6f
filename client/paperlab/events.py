"""A submission's live events (`GET /api/submissions/{id}/events`, Server-Sent Events), as typed values: what
the page's verdict panel gets, one at a time, as the checks finish."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from paperlab.errors import ServerError
from paperlab.schemas import CheckResult, Submission, parse


@dataclass(frozen=True)
class StatusEvent:
    status: str  # queued | running
    total: int


@dataclass(frozen=True)
class CheckEvent:
    check: CheckResult
    done: int
    total: int


@dataclass(frozen=True)
class CallEvent:
    """A learner call still running after a while (`function` "" while the code loads), or None when it ended."""

    function: str | None
    running_s: float = 0.0


@dataclass(frozen=True)
class VerdictEvent:
    """The required checks are done: solved or not. The advisory ones (an experiment) may still run."""

    solved: bool


@dataclass(frozen=True)
class ReportEvent:
    submission: Submission


Event = StatusEvent | CheckEvent | CallEvent | VerdictEvent | ReportEvent

SOLVED_EARLY = "Solved: all required checks pass. The optional checks are still running…"  # the page's words


def sse_messages(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(event name, data) per message of a text/event-stream; comments (heartbeats) and `retry:` are skipped."""
    event, data = "message", list[str]()
    for line in lines:
        if line == "":
            if data:
                yield event, "\n".join(data)
            event, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
    if data:
        yield event, "\n".join(data)


def events(lines: Iterable[str]) -> Iterator[Event]:
    for name, data in sse_messages(lines):
        try:
            value = json.loads(data)
        except ValueError:
            raise ServerError(f"The server sent a `{name}` event that is not JSON.") from None
        if name == "status":
            yield parse(StatusEvent, value, "status")
        elif name == "check":
            yield parse(CheckEvent, value, "check")
        elif name == "call":
            yield CallEvent(function=value.get("function") if isinstance(value, dict) else None,
                            running_s=float(value.get("running_s", 0.0)) if isinstance(value, dict) else 0.0)
        elif name == "verdict":
            yield VerdictEvent(solved=isinstance(value, dict) and value.get("solved") is True)
        elif name == "report":
            yield ReportEvent(parse(Submission, value, "report"))
