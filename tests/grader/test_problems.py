"""grader.problems: a problem folder loads, or fails with a message naming the file and line to fix."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from grader.limits import Limits
from grader.problems import REQUIRED_FILES, ProblemError, discover, load_problem

ADDER = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "adder"


@pytest.fixture
def problems_dir(tmp_path: Path) -> Path:
    root = tmp_path / "problems"
    shutil.copytree(ADDER, root / "adder")
    return root


@pytest.fixture
def folder(problems_dir: Path) -> Path:
    return problems_dir / "adder"


def edit_toml(folder: Path, old: str, new: str) -> None:
    path = folder / "problem.toml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def load_error(folder: Path) -> str:
    with pytest.raises(ProblemError) as caught:
        load_problem(folder)
    return str(caught.value)


def test_loads_the_fixture_problem(folder: Path) -> None:
    problem = load_problem(folder)
    assert problem.slug == "adder" and problem.folder == folder.resolve()
    assert problem.limits == Limits(call_timeout_s=3, load_timeout_s=5, total_timeout_s=20, memory_mb=256,
                                    max_processes=8, cpu_time_s=10, output_kb=4)
    assert problem.parameter_names == {"add_one": ("x",), "scaled_sum": ("x", "factor")}
    assert [c.id for c in problem.checks] == ["add_one.values", "add_one.fresh_storage", "scaled_sum.values",
                                               "scaled_sum.gradient", "scaled_sum.bool_factor"]
    assert all(c.required for c in problem.checks)
    assert problem.statement.startswith("# Add one") and "NotImplementedError" in problem.starter
    assert problem.reference_source().startswith("import torch")
    assert [p.name for p in problem.mutants()] == ["in_place.py"]
    assert [p.name for p in problem.variants()] == ["loop.py"]


def test_loads_by_slug_from_a_problems_directory(problems_dir: Path) -> None:
    assert load_problem("adder", problems_dir).slug == "adder"


def test_unknown_problem(problems_dir: Path) -> None:
    with pytest.raises(ProblemError, match="no problem folder 'nope'"):
        load_problem("nope", problems_dir)


@pytest.mark.parametrize("name", REQUIRED_FILES)
def test_missing_file_is_named(folder: Path, name: str) -> None:
    (folder / name).unlink()
    message = load_error(folder)
    assert message.startswith(f"{folder.resolve() / name}: missing")


@pytest.mark.parametrize(
    "old, new, line, field",
    [
        pytest.param('difficulty = "easy"', 'difficulty = "trivial"', 4, "difficulty", id="bad-enum"),
        pytest.param('title = "Add one"', 'title = ""', 2, "title", id="empty-title"),
        pytest.param('tags = ["fixture"]', 'tags = ["fixture"]\ncolour = "red"', 6, "colour", id="unknown-key"),
        pytest.param("memory_mb = 256", "memory_mb = 1", 20, "limits.memory_mb", id="limit-too-small"),
        pytest.param("cpu_time_s = 10", "cpu_time_s = 10\nwall_s = 3", 23, "limits.wall_s", id="unknown-limit"),
        pytest.param('name = "scaled_sum"', 'name = "scaled sum"', 13, "functions.1.name",
                     id="bad-name-in-second-function-table"),
        pytest.param('slug = "adder"', 'slug = "Adder!"', 1, "slug", id="bad-slug-pattern"),
    ],
)
def test_validation_errors_carry_file_and_line(folder: Path, old: str, new: str, line: int, field: str) -> None:
    edit_toml(folder, old, new)
    message = load_error(folder)
    assert message.startswith(f"{folder.resolve() / 'problem.toml'}:{line}: {field}: "), message


def test_every_validation_error_is_listed(folder: Path) -> None:
    edit_toml(folder, 'difficulty = "easy"', 'difficulty = "trivial"')
    edit_toml(folder, "memory_mb = 256", "memory_mb = 1")
    lines = load_error(folder).splitlines()
    assert [re.sub(r"^.*problem\.toml:(\d+): ([\w.]+):.*$", r"\1 \2", line) for line in lines] == [
        "4 difficulty", "20 limits.memory_mb"]


def test_missing_key_is_reported(folder: Path) -> None:
    edit_toml(folder, 'summary = "A tiny fixture problem for testing the engine."\n', "")
    assert re.match(r".*problem\.toml:\d+: summary: Field required", load_error(folder))


def test_duplicate_function_names(folder: Path) -> None:
    edit_toml(folder, 'name = "scaled_sum"', 'name = "add_one"')
    assert "function names must be unique" in load_error(folder)


def test_invalid_toml_names_the_file_and_line(folder: Path) -> None:
    edit_toml(folder, 'difficulty = "easy"', "difficulty = easy")
    message = load_error(folder)
    assert message.startswith(f"{folder.resolve() / 'problem.toml'}: invalid TOML")
    assert "line 4" in message


def test_slug_must_match_the_folder(problems_dir: Path) -> None:
    renamed = problems_dir / "adder2"
    (problems_dir / "adder").rename(renamed)
    message = load_error(renamed)
    assert message == (f"{renamed.resolve() / 'problem.toml'}:1: slug 'adder' must match the folder name 'adder2'")


def test_reference_must_define_every_function(folder: Path) -> None:
    (folder / "reference.py").write_text("def add_one(x):\n    return x + 1\n")
    assert load_error(folder) == f"{folder.resolve() / 'reference.py'}: defines no function 'scaled_sum' (problem.toml)"


def test_checks_must_define_checks(folder: Path) -> None:
    (folder / "checks.py").write_text("import torch\n")
    assert load_error(folder) == f"{folder.resolve() / 'checks.py'}: defines no @check functions"


@pytest.mark.parametrize("name", ["reference.py", "checks.py"])
def test_trusted_module_that_fails_to_import(folder: Path, name: str) -> None:
    (folder / name).write_text("import torch\nraise RuntimeError('broken on purpose')\n")
    message = load_error(folder)
    assert message == f"{folder.resolve() / name}: failed to import: RuntimeError: broken on purpose"


def test_duplicate_check_ids_are_a_problem_error(folder: Path) -> None:
    checks = folder / "checks.py"
    checks.write_text(checks.read_text() + '\n\n@check("add_one.values", "again")\ndef again(sub, ref):\n    pass\n')
    with pytest.raises((ProblemError, ValueError), match="used twice"):
        load_problem(folder)


def test_discover_skips_a_broken_folder_and_reports_it(problems_dir: Path) -> None:
    shutil.copytree(problems_dir / "adder", problems_dir / "broken")  # slug "adder" in folder "broken"
    shutil.copytree(problems_dir / "adder", problems_dir / "_draft")  # underscore: not a problem yet
    shutil.copytree(problems_dir / "adder", problems_dir / ".hidden")
    (problems_dir / "README.md").write_text("not a folder")
    problems, errors = discover(problems_dir)
    assert [p.slug for p in problems] == ["adder"]
    assert list(errors) == ["broken"]
    assert "slug 'adder' must match the folder name 'broken'" in errors["broken"]


def test_discover_of_a_missing_directory(tmp_path: Path) -> None:
    assert discover(tmp_path / "nowhere") == ([], {})
