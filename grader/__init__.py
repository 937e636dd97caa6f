"""PaperLab's grading engine: load a problem, run an untrusted submission in a sandbox, judge it.

This is the engine's front door: the web app and the benchmark import from here, never from its modules.

    from grader import WorkerPool, grade, load_problem

    problem = load_problem("moco")
    with WorkerPool(size=2) as pool:
        report = grade(problem, code, pool=pool)
"""

from grader.cancel import CallStarted, CancelToken, GradingStopped
from grader.fingerprint import battery_hash, engine_version
from grader.interleave import Answer, Request
from grader.judge import grade
from grader.limits import Limits
from grader.messages import CallsRequest, reply_from_wire
from grader.pool import WorkerPool
from grader.problems import Problem, ProblemError, discover, load_problem
from grader.report import CheckResult, Experiment, Report, ReportError, summarise
from grader.sandbox import GRADER_DIR, SandboxStatus, SandboxUnavailable, probe
from grader.scratch import ScratchError, ScratchResult, run_script, scratch_example
from grader.session import LoadResult
from grader.tracks import Track, Tracks, TracksError, load_tracks

__all__ = [
    "GRADER_DIR",
    "Answer",
    "CallStarted",
    "CallsRequest",
    "CancelToken",
    "CheckResult",
    "Experiment",
    "GradingStopped",
    "Limits",
    "LoadResult",
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
    "reply_from_wire",
    "summarise",
]
