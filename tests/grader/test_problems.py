"""grader.problems: a problem folder loads, or fails with a message naming the file and line to fix."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from grader.helpers_import import importable_as_helpers
from grader.limits import Limits
from grader.problems import (
    REQUIRED_FILES,
    MutantError,
    ProblemError,
    discover,
    load_problem,
    strip_private_comments,
)
from grader.scaffold import create_problem

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


def test_checks_must_define_checks_unless_a_contract_makes_them(folder: Path) -> None:
    (folder / "checks.py").write_text("import torch\n")
    assert load_error(folder) == (f"{folder.resolve() / 'checks.py'}: defines no @check functions, and problem.toml "
                                  "declares no contract to derive checks from")


@pytest.mark.parametrize("name", ["reference.py", "checks.py"])
def test_trusted_module_that_fails_to_import(folder: Path, name: str) -> None:
    (folder / name).write_text("import torch\nraise RuntimeError('broken on purpose')\n")
    message = load_error(folder)
    assert message == f"{folder.resolve() / name}:2: failed to import: RuntimeError: broken on purpose"


@pytest.mark.parametrize(
    ("code", "line", "says"),
    [
        ("import torch\n\ndef f(:\n    pass\n", 3, "SyntaxError"),
        ("def helper():\n    return undefined_name\n\nhelper()\n", 2, "NameError: name 'undefined_name'"),
    ],
)
def test_an_import_failure_names_the_line_of_the_file_it_happened_in(
    folder: Path, code: str, line: int, says: str
) -> None:
    (folder / "checks.py").write_text(code)
    message = load_error(folder)
    assert message.startswith(f"{folder.resolve() / 'checks.py'}:{line}: failed to import: {says}")


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


# ------------------------------------------------------------------- clauses, hints and banned calls in problem.toml

CLAUSES = '''
[[clauses]]
id = "add_one.values"
text = "add_one returns x + 1, elementwise"

[[clauses]]
id = "add_one.storage"
text = "add_one leaves x unchanged and returns new storage"
'''


def append_toml(folder: Path, text: str) -> None:
    path = folder / "problem.toml"
    path.write_text(path.read_text() + text)


def declare_clause(folder: Path, check_id: str, clauses: str) -> None:
    """Make the check `check_id` of the adder's checks.py declare `clauses` (Python source of a list)."""
    path = folder / "checks.py"
    text = path.read_text()
    head = f'@check("{check_id}", '
    start = text.index(head)
    end = text.index(")\n", start)
    path.write_text(text[:end] + f", clauses={clauses}" + text[end:])


def test_clauses_hints_and_banned_calls_are_optional(folder: Path) -> None:
    problem = load_problem(folder)
    assert (problem.clauses, problem.hints, problem.banned_calls) == ((), (), ())
    assert all(c.clauses == () for c in problem.checks)


def test_checks_carry_the_clauses_they_declare(folder: Path) -> None:
    append_toml(folder, CLAUSES)
    declare_clause(folder, "add_one.fresh_storage", '["add_one.storage", "add_one.values"]')
    problem = load_problem(folder)
    assert [(c.id, c.text) for c in problem.clauses] == [
        ("add_one.values", "add_one returns x + 1, elementwise"),
        ("add_one.storage", "add_one leaves x unchanged and returns new storage"),
    ]
    by_id = {c.id: c.clauses for c in problem.checks}
    assert by_id["add_one.fresh_storage"] == ("add_one.storage", "add_one.values")
    assert by_id["add_one.values"] == ()


def test_a_check_naming_an_unknown_clause_fails_with_its_line(folder: Path) -> None:
    append_toml(folder, CLAUSES)
    declare_clause(folder, "scaled_sum.values", '["scaled_sum.value"]')
    line = next(number for number, text in enumerate((folder / "checks.py").read_text().splitlines(), start=1)
                if text.startswith("def scaled_sum_values"))
    assert load_error(folder) == (
        f"{folder.resolve() / 'checks.py'}:{line - 1}: check 'scaled_sum.values' names unknown clause(s) "
        "scaled_sum.value; problem.toml declares: add_one.values, add_one.storage")


def test_a_clause_without_any_declared_clauses_is_unknown(folder: Path) -> None:
    declare_clause(folder, "add_one.values", '["add_one.values"]')
    assert "problem.toml declares: none (add [[clauses]] tables)" in load_error(folder)


@pytest.mark.parametrize(
    "text, field, message",
    [
        pytest.param(CLAUSES.replace('"add_one.storage"', '"add_one.values"'), "clauses",
                     "clause ids must be unique; repeated: add_one.values", id="repeated-clause"),
        pytest.param('\n[[clauses]]\nid = "Add One"\ntext = "x"\n', "clauses.0.id", "should match pattern",
                     id="clause-id-pattern"),
        pytest.param('\n[[clauses]]\nid = "a.b"\ntext = "two\\nlines"\n', "clauses.0.text", "one line",
                     id="clause-one-line"),
        pytest.param('\n[[hints]]\ntext = "h"\nafter_attempts = -1\n', "hints.0.after_attempts", "greater than",
                     id="negative-attempts"),
        pytest.param('\n[[hints]]\ntext = "h"\nafter_attempts = 1.5\n', "hints.0.after_attempts", "integer",
                     id="fractional-attempts"),
        pytest.param('\n[[hints]]\ntext = "a"\nafter_attempts = 3\n[[hints]]\ntext = "b"\nafter_attempts = 1\n',
                     "hints", "must not decrease, got [3, 1]", id="hints-out-of-order"),
        pytest.param("".join(f'\n[[hints]]\ntext = "h{i}"\nafter_attempts = {i}\n' for i in range(4)), "hints",
                     "at most 3 items", id="four-hints"),
        pytest.param('\n[[hints]]\ntext = "h"\nafter_attempts = 0\ncode = "x"\n', "hints.0.code",
                     "Extra inputs are not permitted", id="unknown-hint-key"),
        pytest.param('banned_calls = ["softmax"]\n', "banned_calls", "is not a dotted library name",
                     id="undotted-banned-name"),
        pytest.param('banned_calls = ["torch.nn.functional.soft max"]\n', "banned_calls",
                     "is not a dotted library name", id="banned-name-with-space"),
        pytest.param('banned_calls = ["torch.softmax", "torch.softmax"]\n', "banned_calls",
                     "lists torch.softmax more than once", id="banned-twice"),
    ],
)
def test_invalid_clauses_hints_and_banned_calls(folder: Path, text: str, field: str, message: str) -> None:
    if text.startswith("banned_calls"):
        edit_toml(folder, 'tags = ["fixture"]\n', f'tags = ["fixture"]\n{text}')
    else:
        append_toml(folder, text)
    error = load_error(folder)
    assert f": {field}: " in error and message in error, error


def test_hints_load_in_order(folder: Path) -> None:
    append_toml(folder, '\n[[hints]]\ntext = "Think about storage."\nafter_attempts = 0\n'
                        '\n[[hints]]\ntext = "Which call copies?"\nafter_attempts = 2\n')
    assert [(h.text, h.after_attempts) for h in load_problem(folder).hints] == [
        ("Think about storage.", 0), ("Which call copies?", 2)]


def test_banned_calls_are_listed_in_the_statement(folder: Path) -> None:
    edit_toml(folder, 'tags = ["fixture"]\n',
              'tags = ["fixture"]\nbanned_calls = ["torch.add", "torch.Tensor.add_"]\n')
    problem = load_problem(folder)
    assert problem.banned_calls == ("torch.add", "torch.Tensor.add_")
    written = (folder / "statement.md").read_text()
    assert problem.statement.startswith(written.rstrip())
    assert problem.statement.endswith("## Not allowed\n\nYour solution must not call these library functions "
                                      "(calling one raises an error that names this rule):\n\n"
                                      "- `torch.add`\n- `torch.Tensor.add_`\n")


def test_without_banned_calls_the_statement_is_the_file(folder: Path) -> None:
    assert load_problem(folder).statement == (folder / "statement.md").read_text()


# ------------------------------------------------------------------------------------------------ patch mutants

def write_mutant(folder: Path, name: str, text: str) -> Path:
    path = folder / "mutants" / name
    path.write_text(text)
    return path


PATCH = '''"""This is what you get when you add two instead of one.

Overrides: add_one
Source: a made-up example
"""

import torch


def add_one(x: torch.Tensor) -> torch.Tensor:
    return x + 2
'''


def test_a_patch_is_the_reference_followed_by_the_patch(folder: Path) -> None:
    write_mutant(folder, "adds_two.py", PATCH)
    problem = load_problem(folder)
    mutant = next(m for m in problem.parsed_mutants() if m.name == "adds_two.py")
    assert mutant.is_patch and mutant.overrides == ("add_one",) and mutant.citation == "a made-up example"
    assert mutant.description == "This is what you get when you add two instead of one."
    assert mutant.code.startswith(problem.reference_source().rstrip()) and mutant.code.endswith(PATCH)
    namespace: dict[str, object] = {}
    exec(compile(mutant.code, "mutant", "exec"), namespace)  # noqa: S102 - our own fixture code
    add_one, scaled_sum = namespace["add_one"], namespace["scaled_sum"]
    import torch

    assert add_one(torch.zeros(1)).item() == 2.0  # type: ignore[operator]  # the patch won
    assert scaled_sum(torch.ones(2), 3.0).item() == 6.0  # type: ignore[operator]  # the rest is the reference's


HELPERS = '''def check_factor(factor):
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        raise TypeError("factor must be a Python number")
'''

HELPER_PATCH = '''"""This is what you get when a bool passes for a factor.

Overrides: check_factor
"""


def check_factor(factor):
    if not isinstance(factor, int | float):
        raise TypeError("factor must be a number")
'''


def with_helpers(folder: Path) -> None:
    """The fixture with its validation in helpers.py, which the reference imports."""
    (folder / "helpers.py").write_text(HELPERS)
    reference = (folder / "reference.py").read_text()
    validation = '''    if isinstance(factor, bool) or not isinstance(factor, int | float):
        raise TypeError("factor must be a Python number")
'''
    assert validation in reference
    reference = reference.replace(validation, "    check_factor(factor)\n")
    imports = "import torch\n\nfrom helpers import check_factor\n"
    (folder / "reference.py").write_text(reference.replace("import torch\n", imports, 1))


def test_a_patch_may_override_what_the_reference_imports_from_helpers(folder: Path) -> None:
    with_helpers(folder)
    write_mutant(folder, "bool_factor.py", HELPER_PATCH)
    problem = load_problem(folder)
    mutant = next(m for m in problem.parsed_mutants() if m.name == "bool_factor.py")
    assert mutant.overrides == ("check_factor",)
    namespace: dict[str, object] = {}
    with importable_as_helpers(problem.helpers_module):
        exec(compile(mutant.code, "mutant", "exec"), namespace)  # noqa: S102 - our own fixture code
    import torch

    assert namespace["scaled_sum"](torch.ones(2), True).item() == 2.0  # type: ignore[operator]  # the patch won
    with pytest.raises(TypeError):
        problem.reference.scaled_sum(torch.ones(2), True)  # helpers.py and the reference are untouched


def test_a_patch_redefining_a_helpers_import_must_list_it(folder: Path) -> None:
    with_helpers(folder)
    write_mutant(folder, "bad.py", HELPER_PATCH.replace("Overrides: check_factor", "Overrides: add_one")
                 + "\n\ndef add_one(x):\n    return x + 2\n")
    with pytest.raises(MutantError, match=r"mutants/bad.py:7: the patch redefines the reference's check_factor"):
        load_problem(folder).mutant_sources()


def test_a_whole_file_mutant_is_graded_as_written(folder: Path) -> None:
    problem = load_problem(folder)
    (source,) = problem.mutant_sources()
    assert source.name == "in_place.py"
    assert source.code == (folder / "mutants" / "in_place.py").read_text()


def test_mutant_description_drops_the_old_mutant_label(folder: Path) -> None:
    write_mutant(folder, "labelled.py", '"""Mutant: adds two.\n\nMore words.\n"""\n\ndef add_one(x):\n    return x+2\n')
    names = {s.name: s.description for s in load_problem(folder).mutant_sources()}
    assert names["labelled.py"] == "adds two."


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param('"""Adds two.\n\nOverrides: add_one, scaled_sum\n"""\n\ndef add_one(x):\n    return x + 2\n',
                     "mutants/bad.py:3: the patch says it overrides scaled_sum but does not define it",
                     id="override-not-defined"),
        pytest.param('"""Adds two.\n\nOverrides: add_two\n"""\n\ndef add_two(x):\n    return x + 2\n',
                     "mutants/bad.py:3: the reference defines no add_two", id="override-not-in-reference"),
        pytest.param('"""Adds two.\n\nOverrides: add_one\n"""\n\ndef add_one(x):\n    return x + 2\n\n\n'
                     'def scaled_sum(x, factor):\n    return x.sum()\n',
                     "mutants/bad.py:10: the patch redefines the reference's scaled_sum without listing it",
                     id="unlisted-redefinition"),
        pytest.param('"""Adds two.\n\nOverrides:\n"""\n', "mutants/bad.py:3: 'Overrides:' names no function",
                     id="empty-overrides"),
        pytest.param('"""Overrides: add_one"""\n\ndef add_one(x):\n    return x + 2\n',
                     "a patch's docstring starts with the bug in the learner's words", id="no-description"),
        pytest.param('"""Adds two.\n\nOverrides: add_one\n"""\nfrom __future__ import annotations\n\n'
                     'def add_one(x):\n    return x + 2\n', "mutants/bad.py:5: a patch is appended to the reference",
                     id="future-import"),
        pytest.param('"""Adds two.\n\nOverrides: add_one\n"""\ndef add_one(x:\n', "mutants/bad.py:5: syntax error",
                     id="syntax-error"),
    ],
)
def test_a_malformed_patch_is_named_with_its_line(folder: Path, text: str, message: str) -> None:
    write_mutant(folder, "bad.py", text)
    problem = load_problem(folder)  # loading the problem does not read mutants; the self-test does
    with pytest.raises(MutantError) as caught:
        problem.mutant_sources()
    assert message in str(caught.value)


@pytest.mark.parametrize(
    "clauses, error, message",
    [
        pytest.param("loss.value", TypeError, "clauses must be a list of clause ids", id="a-bare-string"),
        pytest.param(["Loss Value"], ValueError, "must be lowercase dotted words", id="bad-pattern"),
    ],
)
def test_check_refuses_malformed_clause_lists(clauses: object, error: type[Exception], message: str) -> None:
    from grader.checks import check

    with pytest.raises(error, match=message):
        check("loss.value", "title", clauses=clauses)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------- declared contracts

CONTRACT = '''
[functions.dims]
N = {}

[functions.args]
x = { kind = "tensor", shape = ["N"] }

[functions.result]
kind = "tensor"
shape = ["N"]
'''


def contract_problem(tmp_path: Path, *, args: str = 'x = { kind = "tensor", shape = ["N"] }',
                     checks: str = "") -> Path:
    folder = tmp_path / "doubled"
    folder.mkdir()
    (folder / "problem.toml").write_text(
        'slug = "doubled"\ntitle = "Doubled"\nsummary = "2x"\ndifficulty = "easy"\nrequired_groups = ["x"]\n\n'
        '[[functions]]\nname = "double"\nsignature = "double(x)"\n'
        + CONTRACT.replace('x = { kind = "tensor", shape = ["N"] }', args))
    (folder / "reference.py").write_text("def double(x):\n    return 2 * x\n")
    (folder / "checks.py").write_text(checks)
    for name in ("statement.md", "starter.py", "notes.md"):
        (folder / name).write_text("x\n")
    return folder


def test_a_problem_whose_contract_says_everything_needs_no_hand_check(tmp_path: Path) -> None:
    problem = load_problem(contract_problem(tmp_path))
    assert problem.checks and all(check.id.startswith("contract.") for check in problem.checks)
    assert {clause.id for clause in problem.generated_clauses} >= {"contract.double.shapes", "contract.search"}


def test_a_contract_must_declare_the_references_parameters_in_order(tmp_path: Path) -> None:
    folder = contract_problem(tmp_path, args='y = { kind = "tensor", shape = ["N"] }')
    with pytest.raises(ProblemError, match=r"declares \(y\), but the reference's parameters are \(x\)"):
        load_problem(folder)


def test_legal_inputs_for_a_function_without_a_contract_are_refused(tmp_path: Path) -> None:
    folder = contract_problem(tmp_path, checks="from grader.checks import legal_inputs\n\n\n"
                              "@legal_inputs('halve')\ndef f(args, sizes):\n    return args\n")
    with pytest.raises(ProblemError, match="@legal_inputs for halve, which problem.toml declares no contract for"):
        load_problem(folder)


def test_a_hand_check_may_not_take_a_generic_checks_id(tmp_path: Path) -> None:
    folder = contract_problem(tmp_path, checks="from grader.checks import check\n\n\n"
                              "@check('contract.double.values', 'Mine')\ndef mine(sub, ref):\n    pass\n")
    with pytest.raises(ProblemError, match=r"check ids contract\.double\.values are the generic battery's"):
        load_problem(folder)


def test_an_impossible_contract_names_its_line(tmp_path: Path) -> None:
    folder = contract_problem(tmp_path, args='x = { kind = "tensor", shape = ["M"] }')
    with pytest.raises(ProblemError, match=r"problem\.toml:\d+: functions\.0.*uses M, which \[functions\.dims\] "
                                           r"does not declare"):
        load_problem(folder)


# ------------------------------------------------------------------ the solution learners read (Solution page)


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        pytest.param("x = 1\n# private: why x is 1\ny = 2\n", "x = 1\ny = 2\n", id="a-whole-line"),
        pytest.param("x = 1  # private: tuned by hand\n", "x = 1\n", id="trailing"),
        pytest.param("x = 1  # the public reason\n", "x = 1  # the public reason\n", id="an-ordinary-comment"),
        pytest.param('s = "# private: in a string"\n', 's = "# private: in a string"\n', id="inside-a-string"),
        pytest.param("def f():\n    # PRIVATE: upper case too\n    return 1\n", "def f():\n    return 1\n",
                     id="indented-any-case"),
    ],
)
def test_private_comments_are_stripped_from_the_solution_learners_read(source: str, shown: str) -> None:
    assert strip_private_comments(source) == shown


def test_the_solution_is_solution_py_when_the_author_wrote_one(tmp_path: Path) -> None:
    folder = create_problem("with_solution", tmp_path)
    problem = load_problem(folder)
    assert problem.solution_file == "reference.py"
    (folder / "solution.py").write_text("# what learners read\n")
    assert problem.solution_file == "solution.py"
    assert problem.solution_source() == "# what learners read\n"
