"""Fixtures of the problem tests."""

from __future__ import annotations

from typing import Any

import pytest

from grader import interleave
from grader.messages import CallsRequest


@pytest.fixture
def request_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of calls in each request the checks send to the worker, in the order they ask for them (every
    check's request goes through its TaskSession, grouped with others or alone)."""
    sizes: list[int] = []
    original = interleave.TaskSession.calls

    def counted(self: interleave.TaskSession, request: CallsRequest, *args: Any, **kwargs: Any) -> interleave.Answer:
        sizes.append(len(request.calls))
        return original(self, request, *args, **kwargs)

    monkeypatch.setattr(interleave.TaskSession, "calls", counted)
    return sizes
