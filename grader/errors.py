"""The engine's exceptions, as one tree: `except GraderError` catches any error the engine raises on purpose.

    GraderError
    ├── AuthoringError       a problem's files are wrong: ProblemError (MutantError), TracksError, ScaffoldError,
    │                        ContractError (also a ValueError, as pydantic's validators need)
    ├── SandboxError         this machine cannot sandbox: SandboxUnavailable, CgroupError
    ├── GradingError         a grading could not run to its end: WorkerLost, GradingStopped
    └── Unbound              a call's shapes do not fit its contract (grader.contract, caught there)

Each kind is defined where it is raised and keeps its own message; this module only gives them their roots. Two
families stay outside, on purpose: grader.protocol.ProtocolError and its kinds, with grader.protocol.OverBudget
(grader/protocol/ is loaded inside the sandbox too, by the worker, and imports nothing of the engine), and
grader.calls.CheckFailed with SubmissionRaised (a check's failure, which the check API promises is an
AssertionError). Private exceptions used for control flow inside one module (`_Lost`, `_Unsure`, ...) are not
errors of the engine and stay outside. tests/grader/test_errors.py holds the tree.
"""

from __future__ import annotations


class GraderError(Exception):
    """An error the engine raises on purpose; its message says what happened and, where it can, what to change."""


class AuthoringError(GraderError):
    """A problem's files (its folder, tracks.toml, a contract) are wrong; the message names the file and line."""


class SandboxError(GraderError):
    """This machine cannot run submissions in a sandbox; the message says what the operator can change."""


class GradingError(GraderError):
    """A grading could not run to its end: the worker was lost, or the learner stopped it."""


__all__ = ["AuthoringError", "GraderError", "GradingError", "SandboxError"]
