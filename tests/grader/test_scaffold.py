"""`python -m grader new SLUG`: the scaffold creates a complete, sound problem and refuses bad requests."""

import io
import re
from pathlib import Path

import pytest

from grader.contract.clauses import GeneratedClause
from grader.problems import REQUIRED_FILES, ClauseSpec, load_problem
from grader.scaffold import TEMPLATE_DIR, ScaffoldError, create_problem
from grader.selftest import run_selftest


def test_new_creates_every_file_of_the_problem_format(tmp_path: Path) -> None:
    folder = create_problem("layer-norm", tmp_path)
    assert folder == tmp_path / "layer-norm"
    for name in REQUIRED_FILES:
        assert (folder / name).is_file(), name
    assert len(list((folder / "mutants").glob("*.py"))) >= 2
    assert len(list((folder / "variants").glob("*.py"))) >= 1
    problem = load_problem(folder)
    assert problem.slug == "layer-norm"
    assert problem.spec.title == "Layer norm"
    assert problem.checks


def test_new_problem_keeps_its_validation_in_helpers_py_which_the_starter_imports(tmp_path: Path) -> None:
    folder = create_problem("fresh", tmp_path)
    problem = load_problem(folder)
    assert "def check_matrix(x" in problem.helpers and problem.helpers_module is not None
    for name in ("starter.py", "reference.py"):
        text = (folder / name).read_text()
        assert "from helpers import check_matrix" in text, name
        assert "def check_matrix" not in text, f"{name} pastes what helpers.py supplies"
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        problem.reference.normalize_rows([1.0])  # the reference's validation is helpers.py's


def test_every_placeholder_is_filled_and_nothing_else_is_copied(tmp_path: Path) -> None:
    folder = create_problem("demo", tmp_path)
    for path in folder.rglob("*"):
        assert "__pycache__" not in path.parts
        if path.is_file():
            assert "{{" not in path.read_text(), path
    assert [p.name for p in tmp_path.iterdir()] == ["demo"]  # no staging folder left behind


def test_template_python_files_compile() -> None:
    for path in TEMPLATE_DIR.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")


@pytest.mark.parametrize(
    "slug",
    [
        pytest.param("Bad", id="uppercase"),
        pytest.param("1st", id="starts-with-digit"),
        pytest.param("two words", id="space"),
        pytest.param("../escape", id="path"),
        pytest.param("", id="empty"),
        pytest.param("a" * 41, id="too-long"),
    ],
)
def test_invalid_slug_is_refused(tmp_path: Path, slug: str) -> None:
    with pytest.raises(ScaffoldError, match="invalid slug"):
        create_problem(slug, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_existing_folder_is_refused_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep me")
    with pytest.raises(ScaffoldError, match=re.escape(f"{tmp_path / 'taken'} already exists")):
        create_problem("taken", tmp_path)
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["mine.txt"]


def test_new_problem_passes_selftest_straight_away(tmp_path: Path) -> None:
    folder = create_problem("fresh", tmp_path)
    out = io.StringIO()
    assert run_selftest([folder], unsafe=True, stream=out), out.getvalue()
    assert "=> sound" in out.getvalue()


@pytest.mark.sandbox
def test_new_problem_passes_selftest_in_the_sandbox(tmp_path: Path) -> None:
    folder = create_problem("fresh", tmp_path)
    out = io.StringIO()
    assert run_selftest([folder], unsafe=False, stream=out), out.getvalue()


def test_new_problem_uses_the_authoring_forms(tmp_path: Path) -> None:
    problem = load_problem(create_problem("fresh", tmp_path))
    assert all(function.contract is not None for function in problem.spec.functions)  # the contract comes first
    assert len(problem.clauses) >= 2 and 2 <= len(problem.hints) <= 3
    every: tuple[ClauseSpec | GeneratedClause, ...] = (*problem.clauses, *problem.generated_clauses)
    declared = {clause.id for clause in every}
    assert all(check.clauses for check in problem.checks)  # every check names what it tests
    assert declared == {clause for check in problem.checks if check.required for clause in check.clauses}
    hand = [check for check in problem.checks if not check.id.startswith("contract.")]
    assert all(not clause.startswith("contract.") for check in hand for clause in check.clauses)
    mutants = problem.parsed_mutants()
    assert mutants and all(m.is_patch and m.description.startswith("This is what you get when") for m in mutants)
    assert "banned_calls" in (problem.folder / "problem.toml").read_text()  # shown, commented out


def test_new_problem_selftest_has_no_clause_or_hint_warnings(tmp_path: Path) -> None:
    folder = create_problem("fresh", tmp_path)
    out = io.StringIO()
    assert run_selftest([folder], unsafe=True, stream=out), out.getvalue()
    output = out.getvalue()
    assert ("clauses      ok   10/10 clauses tested by a required check (8 from the declared contract, 2 by hand)"
            in output), output
    assert "[[clauses]]" not in output and "[[hints]]" not in output  # neither warning
