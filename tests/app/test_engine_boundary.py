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


@pytest.mark.parametrize("path", CLIENT_FILES, ids=lambda path: str(path.relative_to(REPO)))
def test_only_the_front_door_is_imported(path: Path) -> None:
    assert [name for name in engine_imports(path) if name != "grader"] == []


def test_the_front_door_exports_what_it_names() -> None:
    assert all(hasattr(grader, name) for name in grader.__all__)
