"""Which battery graded a report: a content hash of the parts of a problem folder that decide a verdict, and
the engine's version. A report graded under another hash is stale, and `python -m app regrade` grades it again;
the reference's cached answers (grader.refcache) are kept per hash, so a changed battery never reuses them.

The statement, the notes and the starter do not decide a verdict, so editing them makes nothing stale; the
mutants only word the diagnoses, so they do not either."""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata

from grader.problems import Problem

GRADED_PARTS = ("problem.toml", "checks.py", "reference.py", "helpers.py")
HASH_CHARS = 16  # 64 bits of SHA-256: enough to tell two versions of one problem apart, short on a page

# Problem -> its hash, computed once per loaded problem: the hash of what this process grades with, not of
# whatever the folder holds later (a problem edited on disk is graded the old way until the server restarts).
_by_problem: dict[int, tuple[Problem, str]] = {}


def battery_hash(problem: Problem) -> str:
    cached = _by_problem.get(id(problem))
    if cached is not None and cached[0] is problem:
        return cached[1]
    digest = hashlib.sha256()
    for name in GRADED_PARTS:
        path = problem.folder / name
        if path.is_file():  # helpers.py is optional
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    value = digest.hexdigest()[:HASH_CHARS]
    _by_problem[id(problem)] = (problem, value)  # the strong reference keeps id() from being reused
    return value


@functools.cache  # the installed package's metadata, read from disk (0.3 ms a stored verdict); fixed for a process
def engine_version() -> str:
    try:
        return metadata.version("paperlab")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"
