"""The web app and the benchmark use the engine through its front door (grader/__init__.py) only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import grader

REPO = Path(__file__).resolve().parents[2]
CLIENT_FILES = sorted([*(REPO / "app").rglob("*.py"), *(REPO / "bench").rglob("*.py")])


def engine_imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "grader":
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names if alias.name.split(".")[0] == "grader"]
    return names


# The benchmark's in-process floor runs the sandbox side's own serving code without a sandbox (the difference to
# the sandboxed paths is then exactly the cost of isolation), so it imports grader.sandboxed, and nothing else.
SANDBOX_SIDE_CLIENTS = {REPO / "bench" / "inprocess.py": "grader.sandboxed"}


def allowed(path: Path, name: str) -> bool:
    package = SANDBOX_SIDE_CLIENTS.get(path)
    return name == "grader" or (package is not None and (name == package or name.startswith(package + ".")))


@pytest.mark.parametrize("path", CLIENT_FILES, ids=lambda path: str(path.relative_to(REPO)))
def test_only_the_front_door_is_imported(path: Path) -> None:
    assert [name for name in engine_imports(path) if not allowed(path, name)] == []


def test_the_in_process_floor_speaks_the_sandbox_sides_serving_code() -> None:
    """The exception above is used, and used for the sandbox side only: not a way into the engine's internals."""
    names = engine_imports(REPO / "bench" / "inprocess.py")
    assert [name for name in names if name.startswith("grader.sandboxed.")] != []
    assert not allowed(REPO / "bench" / "inprocess.py", "grader.judge")


def test_the_front_door_exports_what_it_names() -> None:
    assert all(hasattr(grader, name) for name in grader.__all__)
