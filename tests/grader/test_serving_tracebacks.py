"""What the worker reports of an exception the learner's code raised: the submission's innermost frames, in order
from the outside in, with their lines; frames of other files are left out."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from grader.sandboxed.learner_thread import Output, learner_namespace
from grader.sandboxed.serving import MAX_FRAMES, SUBMISSION_FILENAME, Served

SUBMISSION = """\
def down(n):
    if n == 0:
        raise ValueError("bottom")
    return down(n - 1)


def through_library(n):
    return library.call_back(down, n)
"""
LIBRARY = """\
def call_back(function, n):
    return function(n)
"""


def _module(source: str, filename: str, **names: Any) -> types.ModuleType:
    module = types.ModuleType(filename)
    module.__dict__.update(names)
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


@pytest.fixture
def served() -> Served:
    library = _module(LIBRARY, "library.py")
    submission = _module(SUBMISSION, SUBMISSION_FILENAME, library=library)
    output = Output(learner_namespace(), 100)
    served = Served(submission, output, None, [], None)
    served.source = SUBMISSION.splitlines()
    return served


def _raised(served: Served, function: str, n: int) -> dict[str, Any]:
    try:
        served.module.__dict__[function](n)
    except ValueError as exc:
        return served.exception_summary(exc)
    raise AssertionError("the submission did not raise")


RAISE = [3, "down", 'raise ValueError("bottom")']
RECURSE = [4, "down", "return down(n - 1)"]


@pytest.mark.parametrize(("depth", "frames"), [
    pytest.param(0, [RAISE], id="one-frame"),
    pytest.param(2, [RECURSE, RECURSE, RAISE], id="three-frames"),
    pytest.param(40, [RECURSE] * (MAX_FRAMES - 1) + [RAISE], id="deep: the innermost five"),
])
def test_the_innermost_frames_of_the_submission_are_reported_outside_in(served: Served, depth: int,
                                                                         frames: list[list[Any]]) -> None:
    summary = _raised(served, "down", depth)
    assert (summary["type"], summary["message"]) == ("ValueError", "bottom")
    assert summary["traceback"] == frames


def test_frames_of_other_files_are_left_out(served: Served) -> None:
    summary = _raised(served, "through_library", 1)
    assert summary["traceback"] == [[8, "through_library", "return library.call_back(down, n)"], RECURSE, RAISE]


def test_the_outermost_submission_frame_is_kept_when_library_frames_come_after_it(served: Served) -> None:
    summary = _raised(served, "through_library", 0)
    assert [frame[1] for frame in summary["traceback"]] == ["through_library", "down"]


def test_a_recursion_at_the_cap_is_summarised_from_its_innermost_frames(served: Served) -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(12_000)
    try:
        summary = _raised(served, "down", 9_000)
    finally:
        sys.setrecursionlimit(limit)
    assert len(summary["traceback"]) == MAX_FRAMES
    assert summary["traceback"][-1] == RAISE
