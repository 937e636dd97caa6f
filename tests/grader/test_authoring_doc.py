"""docs/authoring.md's worked example runs: its snippets, applied to a fresh `grader new` folder, give a sound
problem whose new clause is tested and whose patch mutant is caught, also by the new check."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from grader.pool import WorkerPool
from grader.problems import load_problem
from grader.scaffold import create_problem
from grader.selftest import run_selftest

DOC = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"
SNIPPET = re.compile(r"<!-- doc-example: (?P<path>\S+) (?P<mode>append|write) -->\n```\w*\n(?P<code>.*?)```", re.S)


def snippets() -> list[tuple[str, str, str]]:
    return [(m["path"], m["mode"], m["code"]) for m in SNIPPET.finditer(DOC.read_text())]


def apply_worked_example(folder: Path) -> None:
    for path, mode, code in snippets():
        target = folder / path
        target.write_text((target.read_text() + "\n\n" if mode == "append" else "") + code)


def test_the_doc_has_the_three_snippets() -> None:
    assert [(path, mode) for path, mode, _ in snippets()] == [
        ("problem.toml", "append"), ("checks.py", "append"), ("mutants/squared_length.py", "write")]


def test_the_worked_example_loads_with_its_clause_check_and_patch(tmp_path: Path) -> None:
    folder = create_problem("worked", tmp_path)
    apply_worked_example(folder)
    problem = load_problem(folder)
    check = next(c for c in problem.checks if c.id == "normalize_rows.unit_length")
    assert check.clauses == ("normalize_rows.unit_length",) and check.required
    (mutant,) = [m for m in problem.parsed_mutants() if m.name == "squared_length.py"]
    assert mutant.overrides == ("normalize_rows",)
    assert mutant.description == "This is what you get when each row is divided by its squared length instead of " \
                                 "its length."


@pytest.mark.slow
def test_the_worked_example_is_sound_and_its_check_catches_the_mutant(tmp_path: Path) -> None:
    folder = create_problem("worked", tmp_path)
    apply_worked_example(folder)
    out = io.StringIO()
    with WorkerPool(size=1, unsafe=True) as pool:
        assert run_selftest([folder], unsafe=True, stream=out, pool=pool), out.getvalue()
    output = out.getvalue()
    assert re.search(r"normalize_rows\.unit_length\s+hand\s+normalize_rows\.unit_length\s+-", output), output
    mutants = sorted(p.name for p in (folder / "mutants").glob("*.py"))
    row = next(line for line in output.splitlines() if line.strip().startswith("normalize_rows.unit_length req"))
    assert row.split()[2][mutants.index("squared_length.py")] in "Xx", row
