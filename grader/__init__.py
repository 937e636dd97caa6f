"""PaperLab's grading engine: load a problem, run an untrusted submission in a sandbox, judge it.

This is the engine's front door: the web app and the benchmark import from here, never from its modules.

    from grader import WorkerPool, grade, load_problem

    problem = load_problem("moco")
    with WorkerPool(size=2) as pool:
        report = grade(problem, code, pool=pool)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grader.cancel import CallStarted, CancelToken, GradingStopped
    from grader.fingerprint import battery_hash, engine_version
    from grader.heap import settle
    from grader.interleave import Answer, Request
    from grader.judge import grade
    from grader.limits import Limits
    from grader.messages import CallsRequest, reply_from_wire
    from grader.pool import WorkerPool
    from grader.prepare import Activity, Preparer
    from grader.problems import Problem, ProblemError, discover, load_problem
    from grader.report import CheckResult, Experiment, Report, ReportError, summarise
    from grader.sandbox import GRADER_DIR, SandboxStatus, SandboxUnavailable, probe
    from grader.scratch import ScratchError, ScratchResult, run_script, scratch_example
    from grader.session import LoadResult
    from grader.tracks import Track, Tracks, TracksError, load_tracks

# Each name is imported on first use (PEP 562), not with the package: `python -m grader grade` starts its sandbox
# before anything imports torch (grader.launch), and a tool that needs one module does not pay for the rest.
_HOME = {
    "CallStarted": "grader.cancel",
    "CancelToken": "grader.cancel",
    "GradingStopped": "grader.cancel",
    "battery_hash": "grader.fingerprint",
    "engine_version": "grader.fingerprint",
    "settle": "grader.heap",
    "Answer": "grader.interleave",
    "Request": "grader.interleave",
    "grade": "grader.judge",
    "Limits": "grader.limits",
    "CallsRequest": "grader.messages",
    "reply_from_wire": "grader.messages",
    "WorkerPool": "grader.pool",
    "Activity": "grader.prepare",
    "Preparer": "grader.prepare",
    "Problem": "grader.problems",
    "ProblemError": "grader.problems",
    "discover": "grader.problems",
    "load_problem": "grader.problems",
    "CheckResult": "grader.report",
    "Experiment": "grader.report",
    "Report": "grader.report",
    "ReportError": "grader.report",
    "summarise": "grader.report",
    "GRADER_DIR": "grader.sandbox",
    "SandboxStatus": "grader.sandbox",
    "SandboxUnavailable": "grader.sandbox",
    "probe": "grader.sandbox",
    "ScratchError": "grader.scratch",
    "ScratchResult": "grader.scratch",
    "run_script": "grader.scratch",
    "scratch_example": "grader.scratch",
    "LoadResult": "grader.session",
    "Track": "grader.tracks",
    "Tracks": "grader.tracks",
    "TracksError": "grader.tracks",
    "load_tracks": "grader.tracks",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'grader' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # once: later lookups find it without coming here
    return value


__all__ = [
    "GRADER_DIR",
    "Activity",
    "Answer",
    "CallStarted",
    "CallsRequest",
    "CancelToken",
    "CheckResult",
    "Experiment",
    "GradingStopped",
    "Limits",
    "LoadResult",
    "Preparer",
    "Problem",
    "ProblemError",
    "Report",
    "ReportError",
    "Request",
    "SandboxStatus",
    "SandboxUnavailable",
    "Track",
    "Tracks",
    "TracksError",
    "ScratchError",
    "ScratchResult",
    "WorkerPool",
    "battery_hash",
    "discover",
    "engine_version",
    "grade",
    "load_problem",
    "load_tracks",
    "probe",
    "run_script",
    "scratch_example",
    "settle",
    "reply_from_wire",
    "summarise",
]
