"""Author mode: the self-test of the problems an author is looking at, kept current in the background.

The author banner of a problem's page asks `GET /api/author/selftest/{slug}` (only in author mode). The first
ask starts watching that folder; from then on every change to its files reruns `python -m grader selftest
FOLDER --json` once the folder has been quiet for `debounce_s` (an editor's save is often several writes). The
self-test grades the reference, the starter and every mutant, which takes seconds to a minute: it runs in a
child process at low priority, one at a time, so no page load ever waits for it or shares its interpreter. The
answer is always the latest result, with whether a run is under way (or due) and when that result was made.

A run that cannot produce a verdict (the self-test crashed, timed out) is reported as an error, with the tail of
what it printed; the previous result is still shown beside it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.catalog import FolderSignature, folder_signature

logger = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEBOUNCE_S = 1.0  # quiet time after the last change before a rerun
POLL_S = 0.5  # how often watched folders are looked at
RUN_TIMEOUT_S = 600.0
ERROR_TAIL = 2000  # characters of a failed run's output kept for the banner

Command = Callable[[Path], list[str]]


def selftest_command(*, unsafe: bool) -> Command:
    """`python -m grader selftest FOLDER --json`, at low priority where `nice` exists."""
    nice = ["nice", "-n", "10"] if shutil.which("nice") else []

    def command(folder: Path) -> list[str]:
        return [*nice, sys.executable, "-m", "grader", "selftest", str(folder), "--json",
                *(["--unsafe-no-sandbox"] if unsafe else [])]

    return command


@dataclass
class _Watched:
    """One folder an author looks at: what its files were when last seen and when last run."""

    slug: str
    seen: FolderSignature | None = None
    changed_at: float = float("-inf")  # monotonic; -inf: due at once (never run)
    ran: FolderSignature | None = None  # the files the latest run (finished or under way) saw
    running: bool = False
    started_at: datetime | None = None
    finished_at: datetime | None = None
    result: dict[str, Any] | None = None
    text: str = ""
    error: str | None = None
    runs: int = 0

    def due(self, now: float, debounce_s: float) -> bool:
        return not self.running and self.seen != self.ran and now - self.changed_at >= debounce_s

    def snapshot(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "running": self.running,
            "queued": not self.running and self.seen != self.ran,  # waiting for quiet, or for its turn
            "started_at": _iso(self.started_at),
            "finished_at": _iso(self.finished_at),
            "runs": self.runs,
            "result": self.result,
            "text": self.text,
            "error": self.error,
        }


@dataclass
class AuthorSelftests:
    """Background self-tests of watched problem folders (see the module's docstring)."""

    problems_dir: Path
    command: Command
    debounce_s: float = DEBOUNCE_S
    poll_s: float = POLL_S
    timeout_s: float = RUN_TIMEOUT_S
    _watched: dict[str, _Watched] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _wake: threading.Event = field(default_factory=threading.Event)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _process: subprocess.Popen[str] | None = None

    def status(self, slug: str) -> dict[str, Any]:
        """The latest result for the folder `slug`, watching it from now on (the first ask starts a run)."""
        with self._lock:
            watched = self._watched.get(slug)
            if watched is None:
                watched = self._watched[slug] = _Watched(slug, seen=self._signature(slug))
                self._wake.set()
            return watched.snapshot()

    def start(self) -> None:
        if self._thread is None:
            self._stopping.clear()
            self._thread = threading.Thread(target=self._loop, name="author-selftest", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        process = self._process
        if process is not None and process.poll() is None:
            _kill_group(process)
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    # ------------------------------------------------------------------------------------------ the loop

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                due = self._look()
                if due is not None:
                    self._run(due)
                    continue  # look again at once: a save during the run makes the folder due again
            except Exception:  # a bug here must not end the banner's self-tests for the rest of the process
                logger.exception("author self-test loop failed; carrying on")
            self._wake.wait(self.poll_s)
            self._wake.clear()

    def _look(self) -> _Watched | None:
        """Note changed folders; the watched folder that is due and has waited longest, marked running."""
        signatures = {slug: self._signature(slug) for slug in list(self._watched)}
        now = time.monotonic()
        with self._lock:
            for slug, signature in signatures.items():
                watched = self._watched[slug]
                if signature != watched.seen:
                    watched.seen, watched.changed_at = signature, now
            due = sorted((w for w in self._watched.values() if w.due(now, self.debounce_s)),
                         key=lambda w: w.changed_at)
            if not due:
                return None
            chosen = due[0]
            chosen.running, chosen.ran, chosen.started_at = True, chosen.seen, datetime.now(UTC)
            return chosen

    def _run(self, watched: _Watched) -> None:
        folder = self.problems_dir / watched.slug
        result, text, error = None, "", None
        try:
            self._process = subprocess.Popen(
                self.command(folder), cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                start_new_session=True,  # the self-test's own sandboxes die with it
            )
            try:
                stdout, stderr = self._process.communicate(timeout=self.timeout_s)
            except subprocess.TimeoutExpired:
                _kill_group(self._process)
                stdout, stderr = self._process.communicate()
                error = f"the self-test took over {self.timeout_s:.0f} s and was stopped"
            if error is None:
                result, text, error = _parse(stdout, stderr, self._process.returncode)
        except OSError as exc:
            error = f"the self-test could not start: {exc}"
        finally:
            self._process = None
        with self._lock:
            watched.running, watched.finished_at, watched.runs = False, datetime.now(UTC), watched.runs + 1
            watched.error = error
            if result is not None:
                watched.result, watched.text = result, text
        if error is not None and not self._stopping.is_set():
            logger.warning("author self-test of %s: %s", watched.slug, error.splitlines()[0])

    def _signature(self, slug: str) -> FolderSignature | None:
        folder = self.problems_dir / slug
        return folder_signature(folder) if folder.is_dir() else None


def _parse(stdout: str, stderr: str, returncode: int | None) -> tuple[dict[str, Any] | None, str, str | None]:
    """(the folder's verdict summary, the text report, an error) from a run's output: its last line is JSON."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    try:
        answer = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict) or (not answer.get("problems") and not answer.get("error")):
        tail = (stderr or stdout)[-ERROR_TAIL:]
        return None, "", f"the self-test exited with status {returncode} without a verdict:\n{tail}"
    if answer.get("error"):
        return None, str(answer.get("text", "")), str(answer["error"])
    return answer["problems"][0], str(answer.get("text", "")), None


def _kill_group(process: subprocess.Popen[str]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None
