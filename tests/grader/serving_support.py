"""What tests of grader.sandboxed.serving share: a runner that calls the learner's function on this thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def run_directly(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """Served's runner without the learner's thread: (True, the result) or (False, what it raised)."""
    try:
        return True, function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the learner's code may raise anything
        return False, exc
