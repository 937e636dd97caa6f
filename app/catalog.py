"""The problems this server offers, from PAPERLAB_PROBLEMS_DIR, kept up to date while it runs.

An invalid folder is logged and listed (`/healthz` `invalid_problems`, with file:line), never served, and never
takes the site down. A folder that loaded once and then breaks keeps serving its last good version until it
loads again. `refresh()` reloads exactly the folders whose files changed (by size and mtime), and
`start_watching()` calls it from a daemon thread every few seconds, so an author's save shows up without a
restart. Statements (and helpers.py, highlighted) are rendered once per load; notes only by the notes page
(after the server has checked the learner solved the problem).

Readers never lock: every refresh builds new `entries` and `invalid` dicts and swaps them in whole, so a
request that read `catalog.entries` keeps a consistent view even while a reload runs.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from app.errors import NotFound
from app.markdown import highlight_code, render_markdown
from grader import Problem, ProblemError, discover, load_problem

logger = logging.getLogger(__name__)

# What identifies one version of a folder: (path inside it, mtime in ns, size) of every file.
FolderSignature = tuple[tuple[str, int, int], ...]

# Error messages of grader.load_problem start with the file, often with its line: "/x/moco/checks.py:12: ...".
_WHERE = re.compile(r"^(?P<file>/[^:\n]+?)(?::(?P<line>\d+))?: (?P<message>.*)$", re.DOTALL)


class InvalidProblem(BaseModel):
    """A problem folder that does not load, as `/healthz` and the author banner show it."""

    slug: str  # the folder's name
    file: str | None  # relative to the problems folder, e.g. "moco/checks.py"; None when the error names none
    line: int | None
    message: str  # the loader's message, paths shortened the same way
    serving_previous: bool  # an earlier version of the folder loaded and is still being served


def invalid_problem(slug: str, error: str, problems_dir: Path, *, serving_previous: bool = False) -> InvalidProblem:
    """Split a loader error into file, line and message; absolute paths become relative to the problems folder
    (the health endpoint is public: it need not reveal where the server keeps its files)."""
    root = f"{problems_dir.resolve()}{os.sep}"
    text = error.replace(root, "")
    match = _WHERE.match(error)
    if match is None:
        return InvalidProblem(slug=slug, file=None, line=None, message=text, serving_previous=serving_previous)
    line = match.group("line")
    return InvalidProblem(
        slug=slug,
        file=match.group("file").replace(root, ""),
        line=int(line) if line else None,
        message=text,
        serving_previous=serving_previous,
    )


@dataclass(frozen=True)
class CatalogEntry:
    problem: Problem
    statement_html: str
    helpers_html: str = ""  # helpers.py highlighted, shown read-only under the editor; "" when the problem has none

    @property
    def slug(self) -> str:
        return self.problem.slug

    @property
    def check_count(self) -> int:
        return len(self.problem.checks)

    def public(self) -> dict[str, Any]:
        """What anyone may see: never the notes, the reference or the checks' code."""
        spec = self.problem.spec
        return {
            "slug": spec.slug,
            "title": spec.title,
            "summary": spec.summary,
            "difficulty": spec.difficulty,
            "tags": list(spec.tags),
            "functions": [
                {"name": f.name, "signature": f.signature, "summary": f.summary} for f in spec.functions
            ],
            "check_count": self.check_count,
        }

    def notes_html(self) -> str:
        return render_markdown(self.problem.notes)

    def uncovered_clauses(self) -> list[str]:
        """Clause ids no required check names (the self-test fails on them; the author banner lists them)."""
        covered = {clause for c in self.problem.checks if c.required for clause in c.clauses}
        return [clause.id for clause in self.problem.clauses if clause.id not in covered]


def _entry(problem: Problem) -> CatalogEntry:
    helpers_html = highlight_code(problem.helpers, "python") if problem.helpers else ""
    statement = statement_without_repeated_title(problem.statement, problem.spec.title)
    return CatalogEntry(problem=problem, statement_html=render_markdown(statement), helpers_html=helpers_html)


LEADING_HEADING = re.compile(r"\A\s*# (?P<text>[^\n]+)\n?")


def statement_without_repeated_title(statement: str, title: str) -> str:
    """The statement without its opening `# heading` when that heading only repeats the page's title (every
    word of it is in problem.toml's title); a heading that says something else stays and shows as the
    statement's subtitle, so an author who changes it sees the change."""
    match = LEADING_HEADING.match(statement)
    if match is None:
        return statement
    words = set(re.findall(r"\w+", match.group("text").lower()))
    return statement[match.end() :] if words <= set(re.findall(r"\w+", title.lower())) else statement


def _candidate_folders(problems_dir: Path) -> list[Path]:
    """The folders discover() would load: not starting with '.' or '_' (drafts)."""
    if not problems_dir.is_dir():
        return []
    return sorted(p for p in problems_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def folder_signature(folder: Path) -> FolderSignature:
    """Every file under the folder with its mtime and size; caches and editors' dot-files do not count.

    The server takes it for every problem every `problems_reload_s` while it grades: 1,500 files here (the mutants
    are most), so it walks with `os.scandir` and builds relative names by hand, 4x cheaper than `os.walk` with
    `os.path.relpath` (28 -> 7 ms a look). What it finds is what that walk found: a link to a folder is not
    followed, and a folder that vanishes mid-walk is skipped."""
    found: list[tuple[str, int, int]] = []
    _signature_walk(str(folder), "", found)
    return tuple(sorted(found))


def _signature_walk(path: str, prefix: str, found: list[tuple[str, int, int]]) -> None:
    try:
        entries = list(os.scandir(path))
    except OSError:  # gone or unreadable since it was listed: the next poll sees it
        return
    for entry in entries:
        name = entry.name
        try:
            is_folder = entry.is_dir()
        except OSError:
            continue
        if is_folder:
            if name != "__pycache__" and not name.startswith(".") and not entry.is_symlink():
                _signature_walk(entry.path, prefix + name + "/", found)
            continue
        if name.startswith(".") or name.endswith((".pyc", "~")):
            continue
        try:
            status = entry.stat()
        except FileNotFoundError:  # deleted between the listing and the stat: the next poll sees it
            continue
        found.append((prefix + name, status.st_mtime_ns, status.st_size))


class ProblemCatalog(Mapping[str, Problem]):
    """slug -> Problem (the mapping the grading runner reads on every submission), plus rendered entries for the
    pages and the folders that do not load."""

    def __init__(
        self,
        entries: dict[str, CatalogEntry] | None = None,
        invalid: dict[str, InvalidProblem] | None = None,
        *,
        problems_dir: Path | None = None,
        signatures: dict[str, FolderSignature] | None = None,
    ) -> None:
        self.entries: dict[str, CatalogEntry] = dict(entries or {})
        self.invalid: dict[str, InvalidProblem] = dict(invalid or {})
        self.problems_dir = problems_dir
        self._signatures: dict[str, FolderSignature] = dict(signatures or {})
        self._refresh_lock = threading.Lock()
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

    def __getitem__(self, slug: str) -> Problem:
        return self.entries[slug].problem

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def errors(self) -> dict[str, str]:
        """folder name -> the loader's message, for every folder that does not load."""
        return {slug: problem.message for slug, problem in self.invalid.items()}

    def entry(self, slug: str) -> CatalogEntry:
        try:
            return self.entries[slug]
        except KeyError:
            raise NotFound(f"There is no problem '{slug}'.") from None

    def author_notices(self, path: str) -> list[str]:
        """What the author banner says on the page at `path` (PAPERLAB_AUTHOR_MODE only): every folder that
        does not load, with file:line, and on a problem's own pages the clauses no required check tests."""
        notices = [
            (problem.message if problem.file else f"{problem.slug}: {problem.message}").splitlines()[0]
            + (" (still serving its last good version)" if problem.serving_previous else " (not served)")
            for problem in self.invalid.values()
        ]  # a message that names a file starts with its file:line already
        parts = path.strip("/").split("/")
        if len(parts) >= 2 and parts[0] == "problems" and parts[1] in self.entries:
            uncovered = self.entries[parts[1]].uncovered_clauses()
            if uncovered:
                notices.append(f"{parts[1]}: clauses no required check tests: {', '.join(uncovered)} "
                               f"(python -m grader selftest {parts[1]} fails until each has one)")
        return notices

    # ------------------------------------------------------------------------------------------- reloading

    def refresh(self, only: str | None = None) -> list[str]:
        """Reload the folders added or changed since the last look, drop the removed ones; returns the names of
        the folders it looked at again (empty when nothing changed, which costs one stat per file). `only`: look
        at that one folder alone (a grading worker, just before it grades that problem: a few stats)."""
        if self.problems_dir is None:
            return []
        problems_dir = self.problems_dir
        with self._refresh_lock:
            if only is None:
                current = {folder.name: folder_signature(folder) for folder in _candidate_folders(problems_dir)}
                looked_at = sorted(set(self._signatures) | set(current))
            else:
                folder = problems_dir / only
                is_candidate = folder.is_dir() and not only.startswith((".", "_")) and "/" not in only
                current = {**self._signatures}
                current.pop(only, None)
                if is_candidate:
                    current[only] = folder_signature(folder)
                looked_at = [only]
            changed = [name for name in looked_at if name in current and self._signatures.get(name) != current[name]]
            removed = [name for name in looked_at if name in self._signatures and name not in current]
            if not changed and not removed:
                return []
            entries, invalid = dict(self.entries), dict(self.invalid)
            for name in removed:
                entries.pop(name, None)
                invalid.pop(name, None)
                logger.info("problem %r removed: its folder is gone", name)
            for name in changed:
                try:
                    problem = load_problem(problems_dir / name, problems_dir)
                except ProblemError as exc:
                    previous = name in entries
                    invalid[name] = invalid_problem(name, str(exc), problems_dir, serving_previous=previous)
                    logger.error("problem folder %r %s: %s", name,
                                 "failed to reload, still serving its last good version" if previous else "skipped",
                                 exc)
                    continue
                entries[problem.slug] = _entry(problem)
                invalid.pop(name, None)
                logger.info("problem %r (re)loaded", name)
            self.entries = dict(sorted(entries.items()))
            self.invalid = dict(sorted(invalid.items()))
            self._signatures = current
            return sorted(changed + removed)

    def start_watching(self, interval_s: float) -> None:
        """Refresh every `interval_s` seconds in a daemon thread until stop_watching()."""
        if self._watcher is not None or self.problems_dir is None:
            return
        self._stop.clear()
        self._watcher = threading.Thread(target=self._watch, args=(interval_s,), name="problem-watcher", daemon=True)
        self._watcher.start()
        logger.info("watching %s for problem changes every %.1f s", self.problems_dir, interval_s)

    def stop_watching(self) -> None:
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            self._stop.set()
            watcher.join(timeout=10)

    def _watch(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            try:
                self.refresh()
            except Exception:  # a bug here must not end live reload for the rest of the process
                logger.exception("refreshing the problem catalog failed; will try again")


def load_catalog(problems_dir: Path) -> ProblemCatalog:
    names = [folder.name for folder in _candidate_folders(problems_dir)]
    signatures = {name: folder_signature(problems_dir / name) for name in names}  # before loading: a save
    problems, errors = discover(problems_dir)  # during the load is seen by the first refresh
    invalid = {}
    for name, message in errors.items():
        logger.error("problem folder %r skipped: %s", name, message)
        invalid[name] = invalid_problem(name, message, problems_dir)
    if not problems:
        logger.warning("no valid problems in %s", problems_dir)
    entries = {p.slug: _entry(p) for p in problems}
    logger.info("serving %d problem(s) from %s: %s", len(entries), problems_dir, ", ".join(entries))
    return ProblemCatalog(entries, invalid, problems_dir=problems_dir, signatures=signatures)
