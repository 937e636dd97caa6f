"""The floor of the benchmark: the same judge and checks, with the submission loaded into THIS process.

It speaks the worker's own call-serving code (grader/worker.py) without a process boundary or a sandbox, so
the difference between it and the sandboxed paths is exactly the cost of isolation. It runs the learner's code
unsandboxed in the caller's process: benchmark use only, never for untrusted code.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from grader.limits import Limits
from grader.pool import LoadResult
from grader.sandbox import GRADER_DIR


def _worker_module() -> types.ModuleType:
    if str(GRADER_DIR) not in sys.path:
        sys.path.insert(0, str(GRADER_DIR))  # worker.py imports its sibling `protocol` as the sandbox does
    return importlib.import_module("worker")


@dataclass
class InProcessSession:
    code: str
    limits: Limits
    module: types.ModuleType | None = None
    _started: float = field(default_factory=time.monotonic)

    def remaining(self) -> float:
        return self.limits.total_timeout_s - (time.monotonic() - self._started)

    def limit_notes(self) -> str:
        return ""  # no cgroup: nothing to report

    def load(self) -> LoadResult:
        self.module = types.ModuleType("benchmark_submission")
        exec(compile(self.code, "submission.py", "exec"), self.module.__dict__)
        functions = tuple(sorted(name for name, value in vars(self.module).items() if callable(value)))
        return LoadResult(ok=True, functions=functions)

    def calls(self, header: dict[str, Any], blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str]) -> tuple[dict[str, Any], list[bytearray]]:
        worker = _worker_module()
        output = worker.BoundedWriter(self.limits.output_kb * 1024)
        reply_blobs: list[bytes] = []
        raw_blobs = [bytearray(blob) for blob in blobs]
        results = [worker._serve_call(self.module, call, raw_blobs, output, reply_blobs) for call in header["calls"]]
        return {"op": "results", "results": results}, [bytearray(blob) for blob in reply_blobs]

    def grouped_calls(
        self, header: dict[str, Any], blobs: list[bytes], groups: Sequence[tuple[float, str | Callable[[], str]]]
    ) -> Iterator[tuple[dict[str, Any], list[bytearray]]]:
        reply, reply_blobs = self.calls(header, blobs, timeout=sum(t for t, _ in groups), what="")
        start = 0
        for count in header["groups"]:
            yield {"op": "results", "results": reply["results"][start : start + count]}, reply_blobs
            start += count

    def close(self) -> None:
        self.module = None


class InProcessPool:
    """Quacks like grader.pool.WorkerPool for grader.judge.grade."""

    size = 1
    sandbox: Literal["bubblewrap", "none"] = "none"

    @contextlib.contextmanager
    def session(self, code: str, limits: Limits, *, seed: int = 0, wait_s: float = 0) -> Iterator[InProcessSession]:
        import random

        import torch

        torch.manual_seed(seed)
        random.seed(seed)
        session = InProcessSession(code=code, limits=limits)
        try:
            yield session
        finally:
            session.close()


__all__ = ["InProcessPool", "InProcessSession"]
