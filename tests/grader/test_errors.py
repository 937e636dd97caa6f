"""The engine's exceptions form one tree (grader/errors.py): `except GraderError` catches every error the engine
raises on purpose, and each kind says what went wrong: a problem's files, the machine's sandbox, or a grading."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

import grader
from grader.calls import CheckFailed, SubmissionRaised, WorkerLost
from grader.cancel import GradingStopped
from grader.cgroups import CgroupError
from grader.contract.schema import ContractError
from grader.contract.sizes import Unbound
from grader.errors import AuthoringError, GraderError, GradingError, SandboxError
from grader.problems import MutantError, ProblemError
from grader.protocol import MessageTooLarge, OverBudget, ProtocolError, Unsigned
from grader.sandbox import SandboxUnavailable
from grader.scaffold import ScaffoldError
from grader.tracks import TracksError

# Run inside the sandbox (they cannot import grader.errors there) or as the command line, not imported by the judge.
NOT_IMPORTED = {"grader.sandboxed", "grader.__main__"}
# Outside the tree on purpose (grader/errors.py says why).
OUTSIDE = {ProtocolError, MessageTooLarge, Unsigned, OverBudget, CheckFailed, SubmissionRaised}


def engine_modules() -> list[ModuleType]:
    names = [info.name for info in pkgutil.walk_packages(grader.__path__, "grader.")
             if "problem_template" not in info.name and info.name.rpartition(".")[0] not in NOT_IMPORTED
             and info.name not in NOT_IMPORTED]
    return [importlib.import_module(name) for name in names]


def public_exceptions() -> set[type[BaseException]]:
    return {value for module in engine_modules() for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == module.__name__
            and not value.__name__.startswith("_")}


def test_every_public_exception_of_the_engine_is_a_grader_error_but_the_named_few() -> None:
    found = public_exceptions()
    assert OUTSIDE <= found
    assert {kind for kind in found if not issubclass(kind, GraderError)} == OUTSIDE


@pytest.mark.parametrize(("error", "kind"), [
    (ProblemError, AuthoringError), (MutantError, AuthoringError), (TracksError, AuthoringError),
    (ScaffoldError, AuthoringError), (ContractError, AuthoringError),
    (SandboxUnavailable, SandboxError), (CgroupError, SandboxError),
    (WorkerLost, GradingError), (GradingStopped, GradingError),
    (Unbound, GraderError),
], ids=lambda value: value.__name__)
def test_each_error_has_its_kind(error: type[BaseException], kind: type[GraderError]) -> None:
    assert issubclass(error, kind)


def test_what_the_errors_were_before_they_still_are() -> None:
    """The tree only adds roots: a handler written for the old bases catches exactly what it caught."""
    assert issubclass(ContractError, ValueError)  # pydantic turns it into a ValidationError
    assert issubclass(CheckFailed, AssertionError)
    assert issubclass(MutantError, ProblemError)
    assert not issubclass(CgroupError, OSError) and not issubclass(WorkerLost, RuntimeError)
    assert str(WorkerLost("the worker process crashed", limit="crash")) == "the worker process crashed"
