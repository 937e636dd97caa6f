"""The docs keep up with the code: every module of grader/ and app/ is in its map (docs/engine.md, docs/app.md),
every name the check API exports is documented for authors, the Python blocks of docs/authoring.md and
docs/engine.md run, the maps list exactly the commands the CLIs define, and every code example imports the engine
only through its front door."""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import re
import types
from pathlib import Path

import pytest
import torch

import grader
import grader.checks
from grader.helpers_import import HELPERS_MODULE, importable_as_helpers
from grader.sandbox import probe

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
AUTHORING = (DOCS / "authoring.md").read_text()
ENGINE = (DOCS / "engine.md").read_text()
# A Python block, with the HTML comment on the line before it, if any: `<!-- doc-example: PATH MODE -->` blocks
# are run by tests/grader/test_authoring_doc.py, `<!-- not-runnable: why -->` blocks are excerpts on purpose, and a
# `<!-- helpers-module: ... -->` block is a problem's helpers.py, which the blocks after it may import.
PYTHON_BLOCK = re.compile(r"(?:<!-- (?P<marker>[\w-]+):?[^\n]*-->\n)?```python\n(?P<code>.*?)```", re.S)


def modules(package: str) -> list[str]:
    return sorted(str(path.relative_to(ROOT)) for path in (ROOT / package).rglob("*.py")
                  if "problem_template" not in path.parts and "__pycache__" not in path.parts)


@pytest.mark.parametrize(("package", "doc"), [("grader", "engine.md"), ("app", "app.md")])
def test_every_module_is_in_its_map(package: str, doc: str) -> None:
    text = (DOCS / doc).read_text()
    missing = [module for module in modules(package) if f"`{module}`" not in text]
    assert missing == [], f"docs/{doc} does not name {missing}"


def test_the_problem_template_is_in_the_engine_map() -> None:
    assert "`grader/problem_template/`" in (DOCS / "engine.md").read_text()


@pytest.mark.parametrize("name", grader.checks.__all__)
def test_every_exported_check_name_is_documented_for_authors(name: str) -> None:
    assert re.search(rf"(?<![\w.]){re.escape(name)}\b", AUTHORING), f"docs/authoring.md never mentions `{name}`"


def python_blocks(text: str = AUTHORING) -> list[tuple[int, str | None, str]]:
    return [(text[: m.start()].count("\n") + 1, m["marker"], m["code"]) for m in PYTHON_BLOCK.finditer(text)]


def test_the_authoring_doc_has_python_blocks() -> None:
    assert len(python_blocks()) >= 3


@pytest.mark.parametrize(("line", "marker", "code"),
                         [pytest.param(*block, id=f"line-{block[0]}") for block in python_blocks()])
def test_a_python_block_of_the_authoring_doc_runs(line: int, marker: str | None, code: str) -> None:
    if marker == "doc-example":
        pytest.skip("run inside a problem folder by tests/grader/test_authoring_doc.py")
    assert marker in (None, "not-runnable", HELPERS_MARKER), f"line {line}: unknown marker {marker!r}"
    if marker == "not-runnable":
        return
    if marker == HELPERS_MARKER:
        module = helpers_module(line, code)
        assert any(isinstance(value, types.FunctionType) for value in vars(module).values()), \
            f"line {line}: a helpers.py example that defines no function"
        return
    # What a problem's checks.py and mutants see: the check API and torch; `helpers`, the problem's helpers.py
    # (the doc's last helpers-module block before this one), as in the sandbox and the judge.
    namespace = {"__name__": "authoring_doc_example", "torch": torch, **{n: getattr(grader.checks, n)
                                                                          for n in grader.checks.__all__}}
    with importable_as_helpers(helpers_before(line) if HELPERS_IMPORT.search(code) else None):
        exec(compile(code, f"docs/authoring.md:{line}", "exec"), namespace)  # noqa: S102 - our own documentation


def test_the_engine_doc_has_python_blocks() -> None:
    assert len(python_blocks(ENGINE)) >= 3


def engine_block(line: int, marker: str | None, code: str) -> object:
    # A block that starts a WorkerPool grades in the sandbox: it runs where one can be made (always in CI).
    marks = [pytest.mark.sandbox, pytest.mark.slow] if "WorkerPool(" in code else []
    return pytest.param(line, marker, code, id=f"line-{line}", marks=marks)


@pytest.mark.parametrize(("line", "marker", "code"), [engine_block(*block) for block in python_blocks(ENGINE)])
def test_a_python_block_of_the_engine_doc_runs(line: int, marker: str | None, code: str) -> None:
    assert marker in (None, "not-runnable"), f"line {line}: unknown marker {marker!r}"
    if marker == "not-runnable":
        return
    if "WorkerPool(" in code:
        status = probe()
        if not status.available:
            if os.environ.get("CI"):
                pytest.fail(f"CI must be able to sandbox: {status.reason}")
            pytest.skip(f"no sandbox on this machine: {status.reason}")
    # Each block is whole: it imports what it uses, as a reader pasting it would.
    exec(compile(code, f"docs/engine.md:{line}", "exec"), {"__name__": "engine_doc_example"})  # noqa: S102


HELPERS_MARKER = "helpers-module"
HELPERS_IMPORT = re.compile(rf"^\s*(from {HELPERS_MODULE} import|import {HELPERS_MODULE}\b)", re.M)


def helpers_module(line: int, code: str) -> types.ModuleType:
    module = types.ModuleType(HELPERS_MODULE)
    exec(compile(code, f"docs/authoring.md:{line}", "exec"), module.__dict__)  # noqa: S102 - our own documentation
    return module


def helpers_before(line: int) -> types.ModuleType:
    earlier = [(start, code) for start, marker, code in python_blocks() if marker == HELPERS_MARKER and start < line]
    assert earlier, f"line {line} imports helpers, but no helpers-module block comes before it"
    return helpers_module(*earlier[-1])


def test_the_authoring_doc_shows_a_helpers_py_and_a_starter_that_imports_it() -> None:
    blocks = python_blocks()
    first = next(index for index, (_, marker, _) in enumerate(blocks) if marker == HELPERS_MARKER)
    assert any(marker is None and HELPERS_IMPORT.search(code) for _, marker, code in blocks[first + 1 :])


# ------------------------------------------------------------------------------- the CLI and the front door


def subcommands(parser: argparse.ArgumentParser) -> list[str]:
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
    return sorted(action.choices)


def commands_in_map(doc: str, module: str) -> list[str]:
    """The commands a module map's row for `module` names: the backticked words between "CLI:" and the first
    semicolon (`grade` or `python -m app serve` alike)."""
    [row] = [line for line in (DOCS / doc).read_text().splitlines() if line.startswith(f"| `{module}` |")]
    listed = row.split("CLI:", 1)[1].split(";", 1)[0]
    return sorted(re.findall(r"`(?:python -m \w+ )?([a-z][a-z-]*)`", listed))


@pytest.mark.parametrize(("doc", "module", "package"), [("engine.md", "grader/__main__.py", "grader"),
                                                       ("app.md", "app/__main__.py", "app")])
def test_the_map_lists_exactly_the_commands_the_cli_defines(doc: str, module: str, package: str) -> None:
    cli = importlib.import_module(f"{package}.__main__")
    assert commands_in_map(doc, module) == subcommands(cli.build_parser())


# What a code example may import from the engine: its front door (grader/__init__.py, which app/ and bench/ use)
# and, in a problem's own files, the check API (grader.checks, docs/authoring.md).
FRONT_DOORS = {"grader": grader.__all__, "grader.checks": grader.checks.__all__}


IMPORT_LINE = re.compile(r"^\s*(from \S+ import [^(]*|import \S+.*)$")


def engine_imports(code: str) -> list[tuple[str, str | None]]:
    """(module, name) of every import of grader in `code`; name None for `import grader...`. An excerpt that is
    not whole Python (`...` for a body) is read by its import lines alone."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        tree = ast.parse("\n".join(line.strip() for line in code.splitlines() if IMPORT_LINE.match(line)))
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names if alias.name.split(".")[0] == "grader"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "grader":
            found += [(node.module or "", alias.name) for alias in node.names]
    return found


def doc_python_blocks() -> list[tuple[str, int, str]]:
    return [(path.name, line, code) for path in sorted([*DOCS.glob("*.md"), ROOT / "README.md"])
            for line, _, code in python_blocks(path.read_text())]


def test_every_code_example_imports_the_engine_only_through_its_front_door() -> None:
    outside = [f"{doc}:{line}: {module}.{name}" for doc, line, code in doc_python_blocks()
               for module, name in engine_imports(code)
               if module not in FRONT_DOORS or name not in FRONT_DOORS[module]]
    assert outside == []


def test_the_front_door_rule_sees_an_internal_import() -> None:
    code = ("import grader.judge\nfrom grader import grade\nfrom grader.pool import WorkerPool\n"
            "from grader.checks import check\n")
    found = engine_imports(code)
    assert found == [("grader.judge", None), ("grader", "grade"), ("grader.pool", "WorkerPool"),
                     ("grader.checks", "check")]
    assert [m for m, n in found if m not in FRONT_DOORS or n not in FRONT_DOORS[m]] == ["grader.judge", "grader.pool"]
