"""The docs keep up with the code: every module of grader/ and app/ is in its map (docs/engine.md, docs/app.md),
every name the check API exports is documented for authors, and the Python blocks of docs/authoring.md and
docs/engine.md run."""

from __future__ import annotations

import os
import re
import types
from pathlib import Path

import pytest
import torch

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
