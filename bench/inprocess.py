"""The floor of the benchmark: the same judge and checks, with the submission loaded into THIS process.

It speaks the worker's own call-serving code (grader/sandboxed/serving.py) without a process boundary, a sandbox or the
learner thread (calls run directly on the grading thread), so
the difference between it and the sandboxed paths is exactly the cost of isolation. It runs the learner's code
unsandboxed in the caller's process: benchmark use only, never for untrusted code.
"""

from __future__ import annotations

import contextlib
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from grader import Answer, CallsRequest, Limits, LoadResult, Request, reply_from_wire
from grader.sandboxed.learner_thread import Output, learner_namespace
from grader.sandboxed.serving import Served


@dataclass
class InProcessSession:
    code: str
    limits: Limits
    modules: dict[str, str] = field(default_factory=dict)  # loaded first, importable by name (helpers.py)
    module: types.ModuleType | None = None
    namespace: dict[str, Any] | None = None
    loaded: dict[str, types.ModuleType] = field(default_factory=dict)  # the problem's modules, by name
    _started: float = field(default_factory=time.monotonic)

    _budget_s: float | None = None  # None: the total time limit (the required checks'), else the advisory budget

    def remaining(self) -> float:
        budget = self.limits.total_timeout_s if self._budget_s is None else self._budget_s
        return budget - (time.monotonic() - self._started)

    def start_advisory_budget(self) -> None:
        self._budget_s, self._started = self.limits.advisory_budget_s, time.monotonic()

    def limit_notes(self) -> str:
        return ""  # no cgroup: nothing to report

    def load(self) -> LoadResult:
        self.module = types.ModuleType("benchmark_submission")
        loaded = self.loaded
        for name, source in self.modules.items():  # as the worker does: a problem's helpers.py comes first
            loaded[name] = types.ModuleType(name)
            exec(compile(source, f"{name}.py", "exec"), loaded[name].__dict__)
        previous = {name: sys.modules.get(name) for name in loaded}
        sys.modules.update(loaded)
        try:
            exec(compile(self.code, "submission.py", "exec"), self.module.__dict__)
        finally:
            for name, module in previous.items():
                if module is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
        functions = tuple(sorted(name for name, value in vars(self.module).items() if callable(value)))
        return LoadResult(ok=True, functions=functions)

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str = "") -> Answer:
        assert self.module is not None, "calls before load"
        if self.namespace is None:  # compiled once per submission, as the child does
            self.namespace = learner_namespace()
        namespace = self.namespace
        served = Served(self.module, Output(namespace, self.limits.output_kb * 1024), _direct, [], None)
        served.modules = self.loaded
        memory = [bytearray(blob) for blob in blobs]  # the arena: the calls work on it, then it is compared
        reply, reply_blobs = served.calls(request.to_wire(None), memory, 1 << 40)
        written = tuple(bytes(now) != blob for now, blob in zip(memory, blobs, strict=True))
        return Answer(reply_from_wire(reply), [bytearray(blob) for blob in reply_blobs], written)

    def grouped_calls(self, requests: Sequence[Request]) -> Iterator[Answer]:
        for request in requests:
            yield self.calls(request.message, request.blobs, timeout=request.timeout, what=request.what)

    def close(self) -> None:
        self.module = None


def _direct(function: Any, args: Any, kwargs: Any) -> tuple[bool, Any]:
    """Call on this thread: (True, value) or (False, what it raised), as the learner thread reports."""
    try:
        return True, function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the learner's exception is the call's answer
        return False, exc


class InProcessPool:
    """Quacks like grader.pool.WorkerPool for grader.judge.grade."""

    size = 1
    sandbox: Literal["bubblewrap", "none"] = "none"

    @contextlib.contextmanager
    def session(self, code: str, limits: Limits, *, seed: int = 0, wait_s: float = 0,
                modules: dict[str, str] | None = None, banned_calls: Sequence[str] = (),
                cancel: object = None, on_call: object = None) -> Iterator[InProcessSession]:
        """`cancel` and `on_call` are accepted and ignored: nothing here runs long enough to stop or watch."""
        import random

        import torch

        torch.set_num_threads(1)  # as the judge and every worker compute (grader.pool.WorkerPool.start)
        torch.default_generator.manual_seed(seed)  # as the child seeds (grader/sandboxed/child_loop.py)
        random.seed(seed)
        session = InProcessSession(code=code, limits=limits, modules=dict(modules or {}))
        try:
            yield session
        finally:
            session.close()


__all__ = ["InProcessPool", "InProcessSession"]
