"""Real processes for the services tests: the web server and Celery workers exactly as operators start them
(`python -m app serve`, `python -m app worker`), and a TCP relay in front of Redis that the tests can cut, so
"the broker is down" is a real refused connection without stopping the machine's Redis."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parents[2]
SLOW_DIR = Path(__file__).parent / "fixtures" / "problems" / "slow_add"
PROBLEM_SOURCES = [
    REPO_ROOT / "tests" / "app" / "fixtures" / "problems" / "add_one",
    Path(__file__).parent / "fixtures" / "problems" / "slow_add",
    REPO_ROOT / "problems" / "moco",  # a real problem (helpers.py, charts) for the editor and notebook clients
]
CORRECT = "import torch\n\n\ndef add_one(x):\n    return x + 1\n"
WRONG = "import torch\n\n\ndef add_one(x):\n    return x + 2\n"
SLOW_CORRECT = (SLOW_DIR / "reference.py").read_text()
START_TIMEOUT_S = 90.0
VERDICT_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisRelay:
    """Forwards 127.0.0.1:port to Redis; stop() refuses new connections and cuts open ones, like a dead broker."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._listener is not None

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def _pump(self, source: socket.socket, destination: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                destination.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, destination):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@dataclass
class Process:
    name: str
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = self.log_path.open("ab")
        self.popen = subprocess.Popen(
            self.argv, cwd=REPO_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group (a worker's main process and its grading processes)."""
        if self.popen is None or self.popen.poll() is not None:
            return
        try:
            os.killpg(self.popen.pid, sig)
        except ProcessLookupError:
            return
        self.popen.wait(timeout=30)

    def stop(self) -> None:
        if self.popen is None or self.popen.poll() is not None:
            return
        try:
            os.killpg(self.popen.pid, signal.SIGTERM)
            self.popen.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()
        except ProcessLookupError:
            pass

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"


@dataclass
class Cluster:
    """One site: a web server and its workers sharing PostgreSQL and Redis."""

    web_env: dict[str, str]
    worker_env: dict[str, str]
    log_dir: Path
    port: int = field(default_factory=free_port)
    web: Process | None = None
    workers: list[Process] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_web(self) -> Process:
        argv = [sys.executable, "-m", "app", "serve", "--port", str(self.port), "--log-level", "warning"]
        self.web = Process("web", argv, self.web_env, self.log_dir / "web.log")
        self.web.start()
        return self.web

    def start_worker(self) -> Process:
        number = len(self.workers) + 1
        argv = [sys.executable, "-m", "app", "worker", "--concurrency", "1", "--log-level", "info"]
        worker = Process(f"worker-{number}", argv, self.worker_env, self.log_dir / f"worker-{number}.log")
        worker.start()
        self.workers.append(worker)
        return worker

    def wait_web_ready(self, timeout_s: float = START_TIMEOUT_S) -> None:
        assert self.web is not None, "start_web() first"
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.web.popen is not None
            if self.web.popen.poll() is not None:
                raise AssertionError(f"the web server exited:\n{self.web.log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=2).status_code in (200, 503):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"the web server did not answer within {timeout_s} s:\n{self.web.log_tail()}")

    def wait_workers_ready(self, count: int, timeout_s: float = START_TIMEOUT_S) -> None:
        """Until `count` grading processes have a live heartbeat (the /metrics gauge)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for worker in self.workers:
                assert worker.popen is not None
                if worker.popen.poll() is not None and worker.popen.returncode not in (-signal.SIGKILL,):
                    raise AssertionError(f"{worker.name} exited:\n{worker.log_tail()}")
            if live_workers(self.base_url) >= count:
                return
            time.sleep(0.3)
        tails = "\n\n".join(f"{w.name}:\n{w.log_tail()}" for w in self.workers)
        raise AssertionError(f"{count} workers did not report within {timeout_s} s:\n{tails}")

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()
        if self.web is not None:
            self.web.stop()

    def logs(self) -> str:
        processes = [p for p in [self.web, *self.workers] if p is not None]
        return "\n\n".join(f"--- {p.name}\n{p.log_tail()}" for p in processes)


def metric_values(base_url: str) -> dict[str, float]:
    """`name{labels}` -> value from /metrics."""
    values: dict[str, float] = {}
    for line in httpx.get(f"{base_url}/metrics", timeout=10).text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def live_workers(base_url: str) -> int:
    try:
        values = metric_values(base_url)
    except httpx.HTTPError:
        return 0
    return int(sum(v for k, v in values.items() if k.startswith("paperlab_grading_workers{")))


def submit(client: httpx.Client, code: str, slug: str = "add_one") -> httpx.Response:
    return client.post(f"/api/problems/{slug}/submissions", json={"code": code})


def wait_for_verdict(client: httpx.Client, submission_id: str, timeout_s: float = VERDICT_TIMEOUT_S) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            body: dict[str, Any] = client.get(f"/api/submissions/{submission_id}").json()
        except httpx.TransportError:  # the server is restarting
            time.sleep(0.2)
            continue
        if body["status"] in ("done", "error"):
            return body
        time.sleep(0.05)
    raise AssertionError(f"no verdict for {submission_id} within {timeout_s} s")


def parse_sse(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    event, data = "message", []
    for line in lines:
        if line.startswith(":"):
            continue
        if line.startswith("event:"):
            event = line[len("event:") :].strip()
        elif line.startswith("data:"):
            data.append(line[len("data:") :].strip())
        elif line == "" and data:
            yield event, json.loads("\n".join(data))
            event, data = "message", []
