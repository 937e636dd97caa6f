"""Scratch runs ("Try it"): the learner's functions followed by a short script of theirs that calls them on
their own tensors and prints. No checks and no verdict: the script runs in the same sandbox, under the same
limits, as a submission's loading, and what comes back is what it printed and, if it raised, where.

The script is untrusted learner code like the submission: it is appended to the code and the two load as one
module in a fresh sandboxed child (the worker runs a module's top level when it loads it, which is exactly a
script). Line numbers are mapped back to the editor the learner wrote them in."""

from __future__ import annotations

import time
from typing import Literal

from pydantic import BaseModel, Field

from grader.calls import WorkerLost
from grader.helpers_import import HELPERS_MODULE
from grader.judge import exception_info
from grader.pool import WorkerPool
from grader.problems import Problem
from grader.sandbox import SandboxUnavailable

SCRATCH_FILE = "scratch.py"
# Between the code and the script, so a traceback line can say which of the two it is in.
SEPARATOR = "\n\n# --- your script ---\n"

Where = Literal["code", "script"]


class ScratchFrame(BaseModel):
    where: Where
    line: int
    function: str
    text: str


class ScratchError(BaseModel):
    kind: Literal["exception", "limit", "sandbox"]
    type: str | None = Field(default=None, description="The exception's class, for kind 'exception'.")
    message: str
    where: Where | None = Field(default=None, description="Which editor the failing line is in.")
    line: int | None = Field(default=None, description="1-based line in that editor.")
    traceback: list[ScratchFrame] = Field(default_factory=list)


class ScratchResult(BaseModel):
    stdout: str = Field(description="What the code and the script printed (stdout and stderr, interleaved).")
    stderr: str = Field(description="The exception's traceback as Python prints it, when the script raised.")
    error: ScratchError | None
    duration_ms: float


def combine(code: str, script: str) -> tuple[str, int]:
    """(the module to load, the 1-based line on which the script starts in it)."""
    head = code.rstrip("\n") + SEPARATOR
    return head + script, head.count("\n") + 1


def locate(line: int, script_start: int) -> tuple[Where, int]:
    return ("script", line - script_start + 1) if line >= script_start else ("code", line)


def scratch_example(problem: Problem) -> str:
    """The problem's example script (scratch.py in its folder), or one made from its function list."""
    path = problem.folder / SCRATCH_FILE
    if path.is_file():
        return path.read_text()
    names = [function.name for function in problem.spec.functions]
    calls = "\n".join(f"# print({function.signature})" for function in problem.spec.functions)
    return (
        f"# Call {', '.join(names) or 'your functions'} on tensors of your own and print what comes back.\n"
        "# This runs after your code, in the same sandbox; nothing is graded.\n"
        "import torch\n\n"
        "torch.manual_seed(0)\n"
        "x = torch.randn(2, 3)\n"
        "print(x)\n"
        f"{calls}\n"
    )


def run_script(problem: Problem, code: str, script: str, *, pool: WorkerPool) -> ScratchResult:
    """Load code + script in a fresh sandboxed child under the problem's limits; never raises for anything the
    learner's code does."""
    started = time.perf_counter()
    module, script_start = combine(code, script)
    modules = {HELPERS_MODULE: problem.helpers} if problem.helpers else {}

    def result(stdout: str, error: ScratchError | None, stderr: str = "") -> ScratchResult:
        return ScratchResult(
            stdout=stdout, stderr=stderr, error=error, duration_ms=(time.perf_counter() - started) * 1000
        )

    try:
        with pool.session(module, problem.limits, modules=modules, banned_calls=problem.banned_calls) as session:
            try:
                loaded = session.load()
            except WorkerLost as exc:
                return result("", ScratchError(kind="limit", message=exc.reason))
    except SandboxUnavailable as exc:
        return result("", ScratchError(kind="sandbox", message=f"the sandbox is unavailable, so nothing ran: {exc}"))
    if loaded.ok:
        return result(loaded.output, None)
    info = exception_info(loaded.raised)
    frames = [
        ScratchFrame(where=where, line=line, function=frame.function, text=frame.text)
        for frame in info.traceback
        for where, line in [locate(frame.line, script_start)]
    ]
    where, line = locate(info.line, script_start) if info.line is not None else (None, None)
    error = ScratchError(
        kind="exception", type=info.type, message=info.message, where=where, line=line, traceback=frames
    )
    return result(loaded.output, error, stderr=_traceback_text(error))


def _traceback_text(error: ScratchError) -> str:
    lines = ["Traceback (most recent call last):"]
    for frame in error.traceback:
        editor = "your script" if frame.where == "script" else "your code"
        lines.append(f"  {editor}, line {frame.line}, in {frame.function}")
        if frame.text:
            lines.append(f"    {frame.text}")
    lines.append(f"{error.type}: {error.message}" if error.message else str(error.type))
    return "\n".join(lines) + "\n"
