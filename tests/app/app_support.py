"""Constants and small action helpers for the web app's tests (fixtures live in conftest.py)."""

from __future__ import annotations

import json
import shutil
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

# Starlette 1.x's TestClient asks for `httpx2` and warns (an error under our filterwarnings) when it finds
# only httpx. Until the dev dependencies carry httpx2, silence exactly that warning, before the import.
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`", category=UserWarning)
from fastapi.testclient import TestClient  # noqa: E402

from app.grading.inprocess import InProcessBackend  # noqa: E402
from app.grading.runner import GradeFunction  # noqa: E402
from app.state import BackendContext, BackendFactory  # noqa: E402
from grader.problems import Problem  # noqa: E402
from grader.report import Report, summarise  # noqa: E402

__all__ = ["TestClient"]

FIXTURES = Path(__file__).parent / "fixtures"
PROBLEMS = FIXTURES / "problems"
CORRECT = "import torch\n\n\ndef add_one(x):\n    return x + 1\n"
WRONG = "import torch\n\n\ndef add_one(x):\n    return x + 2\n"
CHECK_IDS = ["add_one.hand_example", "add_one.inputs_unchanged", "add_one.experiment"]
NOTES_SENTINEL = "NOTES-SENTINEL-7f3a"
VERDICT_TIMEOUT_S = 60.0



def submit(
    client: TestClient | httpx.Client, code: str, slug: str = "add_one", **kwargs: Any
) -> httpx.Response:
    return client.post(f"/api/problems/{slug}/submissions", json={"code": code}, **kwargs)


def wait_for_verdict(client: TestClient | httpx.Client, submission_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + VERDICT_TIMEOUT_S
    while time.monotonic() < deadline:
        body: dict[str, Any] = client.get(f"/api/submissions/{submission_id}").json()
        if body["status"] in ("done", "error"):
            return body
        time.sleep(0.02)
    raise AssertionError(f"no verdict for {submission_id} within {VERDICT_TIMEOUT_S} s")


def run(client: TestClient | httpx.Client, code: str) -> dict[str, Any]:
    response = submit(client, code)
    assert response.status_code == 202, response.text
    return wait_for_verdict(client, response.json()["id"])


def parse_sse(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    """(event, data) pairs; comments come as ("comment", text)."""
    event, data = "message", []
    for line in lines:
        if line.startswith(":"):
            yield "comment", line[1:].strip()
        elif line.startswith("event:"):
            event = line[len("event:") :].strip()
        elif line.startswith("data:"):
            data.append(line[len("data:") :].strip())
        elif line == "" and data:
            yield event, json.loads("\n".join(data))
            event, data = "message", []


def events_path(submission_id: str) -> str:
    return f"/api/submissions/{submission_id}/events"


def open_stream(stack: ExitStack, client: TestClient | httpx.Client, submission_id: str) -> httpx.Response:
    """A stream held open until `stack` closes."""
    response: httpx.Response = stack.enter_context(client.stream("GET", events_path(submission_id)))
    return response


def read_events(client: TestClient | httpx.Client, submission_id: str) -> list[tuple[str, Any]]:
    with client.stream("GET", f"/api/submissions/{submission_id}/events") as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        return [item for item in parse_sse(response.iter_lines()) if item[0] != "comment"]


def copy_problems(destination: Path) -> Path:
    shutil.copytree(PROBLEMS, destination)
    return destination


class HeldGrader:
    """A stand-in for grader.judge.grade that waits until released: for the queue/API mechanics only
    (in-flight and queue limits, heartbeats), never for verdicts."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.calls: list[str] = []

    def __call__(self, problem: Problem, code: str, *, pool: Any, on_check: Any = None, **_: Any) -> Report:
        self.calls.append(code)
        self.started.set()
        if not self.release.wait(timeout=VERDICT_TIMEOUT_S):
            raise AssertionError("HeldGrader was never released")
        return summarise(
            problem=problem.slug, checks=[], experiment=None, limits={}, sandbox="none", duration_ms=0.0
        )


def held_backend(grader: GradeFunction, *, pool: Any = None) -> BackendFactory:
    def factory(context: BackendContext) -> InProcessBackend:
        return InProcessBackend(
            session_factory=context.session_factory,
            problems=context.catalog,
            bus=context.bus,
            concurrency=context.settings.grading_concurrency,
            queue_limit=context.settings.queue_limit,
            queue_limit_per_address=context.settings.queue_limit_per_address,
            grade=grader,
            pool_factory=lambda: pool or NoPool(),
        )

    return factory


class NoPool:
    sandbox = "none"

    def start(self) -> None:
        pass

    def close(self) -> None:
        pass


class TurnstileGrader:
    """A stand-in for grader.judge.grade that lets one grading through per `admit()`: the order in which the
    queue hands out submissions (`calls`, by code) is then exactly observable."""

    def __init__(self) -> None:
        self._permits = threading.Semaphore(0)
        self._lock = threading.Lock()
        self.calls: list[str] = []

    def __call__(self, problem: Problem, code: str, *, pool: Any, on_check: Any = None, **_: Any) -> Report:
        with self._lock:
            self.calls.append(code)
        if not self._permits.acquire(timeout=VERDICT_TIMEOUT_S):
            raise AssertionError("TurnstileGrader was never admitted")
        return summarise(
            problem=problem.slug, checks=[], experiment=None, limits={}, sandbox="none", duration_ms=0.0
        )

    def admit(self) -> None:
        self._permits.release()

    def wait_for_calls(self, count: int) -> list[str]:
        deadline = time.monotonic() + VERDICT_TIMEOUT_S
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.calls) >= count:
                    return list(self.calls)
            time.sleep(0.005)
        raise AssertionError(f"only {len(self.calls)} of {count} gradings started: {self.calls}")


def every_route(app: Any) -> list[tuple[str, set[str], list[str]]]:
    """(path, methods, path parameters) of every route, those of included routers too (FastAPI wraps an
    included router in one entry of `app.routes` that lists its routes as `effective_route_contexts`)."""
    found = []
    for route in app.routes:
        contexts = route.effective_route_contexts() if hasattr(route, "effective_route_contexts") else [route]
        for context in contexts:
            if hasattr(context, "methods") and hasattr(context, "param_convertors"):
                found.append((context.path, set(context.methods or ()), list(context.param_convertors)))
    return found


def from_address(app: Any, address: str) -> TestClient:
    """A new browser (its own cookie jar) whose connection comes from `address`."""
    return TestClient(app, client=(address, 50000))
