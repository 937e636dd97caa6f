"""A problem's folder on the learner's machine, as `paperlab fetch` writes it: the statement (Markdown), the
starter to fill in (`SLUG.py`), the supplied helpers.py the starter imports, and the "Try it" script
(`try_SLUG.py`), plus `.paperlab.json`, which tells `paperlab test` and `paperlab try` which problem and which
script a file in that folder belongs to. Nothing the learner wrote is overwritten without `--force`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from paperlab.errors import UsageError
from paperlab.schemas import Problem

MARKER = ".paperlab.json"


@dataclass(frozen=True)
class Workspace:
    problem: str
    solution: str
    script: str
    url: str


def workspace_files(problem: Problem) -> dict[str, str]:
    """File name -> content, in the order they are listed to the learner."""
    slug = problem.slug
    files = {"statement.md": problem.statement, f"{slug}.py": problem.starter}
    if problem.helpers:
        files["helpers.py"] = problem.helpers
    files[f"try_{slug}.py"] = (
        f"# Try it: `paperlab try {slug}.py` runs this script on the server, right after your {slug}.py and in the\n"
        "# same module (the functions it calls come from there), in the sandbox that grades it. Nothing is graded.\n"
        + problem.scratch
    )
    return files


def write_workspace(problem: Problem, directory: Path, *, url: str, force: bool = False) -> list[Path]:
    files = workspace_files(problem)
    paths = [directory / name for name in files]
    existing = [path for path in paths if path.exists()]
    if existing and not force:
        names = ", ".join(str(path) for path in existing)
        raise UsageError(f"Not overwriting {names}: your work may be in there. Fetch into another folder, or pass "
                         "--force to replace them.")  # fmt: skip
    directory.mkdir(parents=True, exist_ok=True)
    for path, content in zip(paths, files.values(), strict=True):
        path.write_text(content)
    marker = Workspace(problem=problem.slug, solution=f"{problem.slug}.py", script=f"try_{problem.slug}.py", url=url)
    (directory / MARKER).write_text(json.dumps(marker.__dict__, indent=2) + "\n")
    return paths


def read_workspace(directory: Path) -> Workspace | None:
    try:
        stored = json.loads((directory / MARKER).read_text())
        return Workspace(problem=str(stored["problem"]), solution=str(stored["solution"]),
                         script=str(stored["script"]), url=str(stored.get("url", "")))  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError):
        return None


def problem_for(file: Path, explicit: str | None) -> str:
    if explicit:
        return explicit
    workspace = read_workspace(file.resolve().parent)
    if workspace is None:
        raise UsageError(f"Which problem is {file} for? Run it in a folder `paperlab fetch` made, or pass "
                         "--problem SLUG (`paperlab list` shows them).")  # fmt: skip
    return workspace.problem


def script_for(file: Path, explicit: Path | None) -> Path:
    if explicit is not None:
        return explicit
    workspace = read_workspace(file.resolve().parent)
    if workspace is None:
        raise UsageError(f"Which script should run after {file}? Name it: `paperlab try {file} SCRIPT.py`.")
    return file.resolve().parent / workspace.script


def read_source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"There is no file {path}.") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}).") from None
    except OSError as exc:
        raise UsageError(f"{path} cannot be read: {exc.strerror}.") from None
