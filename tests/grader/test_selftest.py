"""`python -m grader selftest`: a sound problem passes; each way a battery can be unsound is caught and named."""

import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest

from grader.pool import WorkerPool
from grader.problems import load_problem
from grader.scaffold import create_problem
from grader.selftest import lint_problem, run_selftest, selftest_verdicts, verdict_summary


class SelfTest(Protocol):
    """The `selftest` fixture: self-test the folders in the module's pool; whether all are sound, and the report."""

    def __call__(self, *folders: Path) -> tuple[bool, str]: ...


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    """One warm pool for the module: starting one costs seconds (it imports torch); grading costs milliseconds.
    Unsandboxed: these tests are about the self-test's logic, and the code graded is the test's own."""
    with WorkerPool(size=1, unsafe=True) as pool:
        yield pool


@pytest.fixture
def problem(tmp_path: Path) -> Path:
    """A fresh, sound problem (the scaffold's example) in a temporary problems directory."""
    return create_problem("sample", tmp_path / "problems")


@pytest.fixture
def selftest(pool: WorkerPool) -> SelfTest:
    def run(*folders: Path) -> tuple[bool, str]:
        out = io.StringIO()
        ok = run_selftest(list(folders), unsafe=True, stream=out, pool=pool)
        return ok, out.getvalue()

    return run


def mutant_row(output: str, name: str) -> str:
    """The mutants table's row of `name`: number, name, first required check that caught it, checks failed."""
    return next(line for line in output.splitlines() if re.match(rf"\s*\d+\s+{re.escape(name)}\s", line))


def test_sound_problem_passes_and_prints_the_mutant_table(problem: Path, selftest: SelfTest) -> None:
    ok, output = selftest(problem)
    assert ok, output
    assert "first required check that caught it" in output
    for mutant in (problem / "mutants").glob("*.py"):
        row = mutant_row(output, mutant.name)
        assert re.fullmatch(rf"\d+\s+{mutant.name}\s+\S+\.\S+\s+\d+", row.strip()), row  # check id, how many failed
    assert output.rstrip().splitlines()[-1] == "selftest passed: 1 problem(s) sound"


def test_mutant_no_required_check_catches_fails_and_is_named(problem: Path, selftest: SelfTest) -> None:
    shutil.copy(problem / "reference.py", problem / "mutants" / "not_really_wrong.py")
    ok, output = selftest(problem)
    assert not ok
    assert "mutant not_really_wrong.py: no required check caught it" in output
    assert "selftest FAILED: 1 of 1 problem(s) unsound: sample" in output


def test_mutant_caught_only_by_an_advisory_check_is_not_caught(problem: Path, selftest: SelfTest) -> None:
    checks = problem / "checks.py"
    checks.write_text(checks.read_text() + '''

from grader.checks import expect


@check("style.quiet", "Advisory: prints nothing", required=False)
def quiet(sub, ref):
    result = sub.normalize_rows.call(torch.ones(2, 2))
    expect(not result.output, f"{result.call} printed {result.output!r}")
''')
    reference = (problem / "reference.py").read_text()
    (problem / "mutants" / "chatty.py").write_text(
        reference.replace("    check_matrix(x)\n", "    check_matrix(x)\n    print('debug')\n"))
    ok, output = selftest(problem)
    assert not ok
    assert "mutant chatty.py: no required check caught it (only advisory: style.quiet)" in output


def test_flaky_check_is_detected(problem: Path, selftest: SelfTest) -> None:
    # A check whose verdict depends on how often it has run: passes the first time, fails the second.
    checks = problem / "checks.py"
    checks.write_text(checks.read_text() + '''

from grader.checks import expect

_RUNS = []


@check("normalize_rows.flaky", "Passes on odd runs only")
def flaky(sub, ref):
    _RUNS.append(1)
    expect(len(_RUNS) % 2 == 1, f"run {len(_RUNS)}")
''')
    ok, output = selftest(problem)
    assert not ok
    assert "flaky checks" in output
    assert re.search(r"normalize_rows\.flaky: run 1 passed.*run 2 failed", output)


def test_broken_problem_toml_gives_file_and_line(problem: Path, selftest: SelfTest) -> None:
    toml = problem / "problem.toml"
    lines = toml.read_text().splitlines()
    number = next(i for i, line in enumerate(lines, start=1) if line.startswith("difficulty"))
    lines[number - 1] = 'difficulty = "impossible"'
    toml.write_text("\n".join(lines) + "\n")
    ok, output = selftest(problem)
    assert not ok
    assert f"{toml}:{number}: difficulty:" in output


def test_variant_that_fails_a_check_is_reported(problem: Path, selftest: SelfTest) -> None:
    shutil.copy(problem / "mutants" / "no_floor.py", problem / "variants" / "actually_wrong.py")
    ok, output = selftest(problem)
    assert not ok
    assert "actually_wrong.py: normalize_rows.zero_row failed" in output


MANY_CALLS = '''

@check("normalize_rows.many_calls", "Forty small calls", required=False)
def many_calls(sub, ref):
    for _ in range(40):
        expect_close(sub.normalize_rows(torch.tensor([[3.0, 4.0]])), torch.tensor([[0.6, 0.8]]))
'''

SLOW_VARIANT = '''"""Variant: right, and slow: each call sleeps 50 ms (the learner's clock counts it)."""

import time

import torch

from helpers import check_matrix


def normalize_rows(x):
    check_matrix(x)
    time.sleep(0.05)
    return x / x.norm(dim=1, keepdim=True).clamp_min(1e-12)
'''


def test_a_variant_whose_advisory_check_the_budget_cuts_short_is_a_warning_not_unsound(
        problem: Path, selftest: SelfTest) -> None:
    """How far a slow variant gets in an advisory check depends on the machine: the budget cutting it short
    decides no verdict, so the self-test warns and stays sound."""
    (problem / "checks.py").write_text((problem / "checks.py").read_text() + MANY_CALLS)
    toml = problem / "problem.toml"
    toml.write_text(toml.read_text().replace("[limits]\n", "[limits]\nadvisory_budget_s = 1.0\n"))
    (problem / "variants" / "slow.py").write_text(SLOW_VARIANT)
    ok, output = selftest(problem)
    assert ok, output
    assert "variant slow.py: advisory check normalize_rows.many_calls was cut short" in output


def test_starter_that_does_not_load_is_reported(problem: Path, selftest: SelfTest) -> None:
    (problem / "starter.py").write_text("def normalize_rows(x):\n    return (\n")
    ok, output = selftest(problem)
    assert not ok
    assert "the starter must load and run" in output


def test_reference_failing_a_check_is_reported(problem: Path, selftest: SelfTest) -> None:
    reference = problem / "reference.py"
    reference.write_text(reference.read_text().replace("clamp_min(1e-12)", "clamp_min(1e-12) * 2"))
    ok, output = selftest(problem)
    assert not ok
    assert "the reference must pass every check" in output
    assert "normalize_rows.hand_example failed" in output


def test_sound_and_broken_problems_together(problem: Path, tmp_path: Path, selftest: SelfTest) -> None:
    broken = create_problem("broken", tmp_path / "problems")
    (broken / "checks.py").write_text("x = )\n")
    ok, output = selftest(problem, broken)
    assert not ok
    assert "checks.py:1: failed to import: SyntaxError" in output
    assert "selftest FAILED: 1 of 2 problem(s) unsound: broken" in output


PATCH_NO_FLOOR = '''"""This is what you get when you divide by the norm itself: a zero row becomes 0 / 0 = nan.

Overrides: normalize_rows
"""


def normalize_rows(x):
    check_matrix(x)  # the one the reference imports: a patch sees everything the reference defines or imports
    return x / x.norm(dim=1, keepdim=True)
'''


def test_a_patch_mutant_is_graded_on_top_of_the_reference(problem: Path, selftest: SelfTest) -> None:
    (problem / "mutants" / "patched_no_floor.py").write_text(PATCH_NO_FLOOR)
    ok, output = selftest(problem)
    assert ok, output
    row = mutant_row(output, "patched_no_floor.py")
    assert "normalize_rows.zero_row" in row, row


def test_a_patch_that_does_not_define_what_it_overrides_is_unsound(problem: Path, selftest: SelfTest) -> None:
    (problem / "mutants" / "broken_patch.py").write_text(
        PATCH_NO_FLOOR.replace("Overrides: normalize_rows", "Overrides: normalize_rows, normalise_all"))
    ok, output = selftest(problem)
    assert not ok
    assert "mutant broken_patch.py: malformed:" in output
    assert "the patch says it overrides normalise_all but does not define it" in output


# ------------------------------------------------------------------------ what the self-test tells the author


def test_a_copy_of_the_reference_is_called_probably_correct(problem: Path, selftest: SelfTest) -> None:
    shutil.copy(problem / "reference.py", problem / "mutants" / "not_really_wrong.py")
    ok, output = selftest(problem)
    assert not ok
    match = re.search(r"mutant not_really_wrong\.py: no required check caught it; identical to the reference on "
                      r"all (\d+) inputs \((\d+) the checks used, (\d+) random ones like them\): probably correct",
                      output)
    assert match, output
    total, used, drawn = map(int, match.groups())
    assert total == used + drawn and used >= 8 and drawn > 0  # the template's checks make at least 8 calls


def without_contract(problem: Path) -> None:
    """The problem with its hand checks only: the explanations of an uncaught mutant are about what they call."""
    toml = problem / "problem.toml"
    text = toml.read_text()
    toml.write_text(text[:text.index("# The function's contract")] + text[text.index("# What the declaration"):])


def test_an_uncaught_mutant_shows_an_input_where_it_differs(problem: Path, selftest: SelfTest) -> None:
    # Wrong only where an element exceeds 4.5 in size: the template's hand checks stay below (the hand example's 4
    # is the largest), random inputs on their scale go beyond.
    without_contract(problem)
    reference = (problem / "reference.py").read_text()
    (problem / "mutants" / "large_values.py").write_text(reference.replace(
        "    return x / norms.clamp_min(1e-12)",
        "    if x.abs().max() > 4.5:\n        return x / norms.clamp_min(1e-12) / 2\n"
        "    return x / norms.clamp_min(1e-12)"))
    ok, output = selftest(problem)
    assert not ok
    message = next(line for line in output.splitlines() if "mutant large_values.py: no required check caught" in line)
    assert "; differs on input normalize_rows(x=" in message, message
    assert "(random, shaped like an input of check normalize_rows." in message, message
    assert "values differ" in message and "no check makes a call like it" in message, message


def test_an_uncaught_mutant_differing_only_in_gradients_is_shown(problem: Path, selftest: SelfTest) -> None:
    # Detaching the norm changes the gradient only; this differentiable check looks at requires_grad alone.
    without_contract(problem)
    checks = problem / "checks.py"
    checks.write_text(checks.read_text() + '''

@check("normalize_rows.differentiable", "The result is differentiable with respect to x",
       clauses=["normalize_rows.unit_rows"])
def differentiable(sub, ref):
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(2), dtype=torch.float64).requires_grad_()
    result = sub.normalize_rows.call(x)
    expect_tensor(result.unwrap(), requires_grad=True, call=result)
'''.replace("from grader.checks import check, expect_close", ""))
    checks.write_text(checks.read_text().replace("from grader.checks import check, expect_close",
                                                 "from grader.checks import check, expect_close, expect_tensor"))
    reference = (problem / "reference.py").read_text()
    (problem / "mutants" / "detached_norm.py").write_text(reference.replace(
        "norms = x.norm(dim=1, keepdim=True)", "norms = x.norm(dim=1, keepdim=True).detach()"))
    ok, output = selftest(problem)
    assert not ok
    message = next(line for line in output.splitlines() if "mutant detached_norm.py: no required check" in line)
    assert "(used by check normalize_rows.differentiable)" in message, message
    assert "x.grad" in message, message
    assert "check normalize_rows.differentiable makes this call but does not compare what differs" in message


def test_the_check_by_mutant_table_marks_who_fails_what(problem: Path, selftest: SelfTest) -> None:
    ok, output = selftest(problem)
    assert ok, output
    mutants = sorted(path.name for path in (problem / "mutants").glob("*.py"))  # columns in this order
    lines = output.splitlines()
    zero_row = next(line for line in lines if line.strip().startswith("normalize_rows.zero_row req"))
    cells = zero_row.split()[2]
    assert len(cells) == len(mutants)
    assert cells[mutants.index("no_floor.py")] == "X"  # it is the first required check to fail the no-floor mutant
    assert set(cells) <= set("Xx.E-")


def test_a_check_no_mutant_fails_is_warned_about(problem: Path, selftest: SelfTest) -> None:
    checks = problem / "checks.py"
    checks.write_text(checks.read_text() + '''

@check("normalize_rows.one_by_one", "A 1 x 1 matrix [[2]] becomes [[1]]")
def one_by_one(sub, ref):
    expect_close(sub.normalize_rows(torch.tensor([[2.0]])), torch.tensor([[1.0]]))
''')
    ok, output = selftest(problem)
    assert ok, output
    assert ("warning: required check normalize_rows.one_by_one fails on no mutant: the corpus may not test it"
            in output)


def test_the_clause_table_fails_for_a_clause_only_an_advisory_check_tests(problem: Path, selftest: SelfTest) -> None:
    checks = problem / "checks.py"
    old = '@check("normalize_rows.zero_row", "A zero row stays zero", '
    assert old in checks.read_text()
    checks.write_text(checks.read_text().replace(old, old + "required=False, "))
    ok, output = selftest(problem)
    assert not ok
    assert re.search(r"normalize_rows\.unit_rows\s+hand\s+normalize_rows\.hand_example\s+-", output), output
    assert re.search(r"normalize_rows\.zero_row\s+hand\s+NONE\s+normalize_rows\.zero_row", output), output
    assert re.search(r"contract\.normalize_rows\.refusals\s+contract\s+contract\.normalize_rows\.refusals\s+-",
                     output), output
    assert "clauses no required check tests: normalize_rows.zero_row" in output
    assert "clauses      FAIL 9/10 clauses tested by a required check (8 from the declared contract, 2 by hand)" \
        in output


def test_a_problem_without_clauses_only_gets_a_warning(problem: Path, selftest: SelfTest) -> None:
    toml = problem / "problem.toml"
    text = toml.read_text()
    toml.write_text(text[:text.index("# The function's contract")] + text[text.index("# Two or three"):])
    checks = problem / "checks.py"
    checks.write_text(re.sub(r",\s*clauses=\[[^\]]*\]", "", checks.read_text()))
    (problem / "mutants" / "in_place.py").unlink()  # only the contract's battery looks for writes to x
    ok, output = selftest(problem)
    assert ok, output
    assert "warning: problem.toml lists no [[clauses]] and declares no contract" in output


def test_lint_findings_make_a_problem_unsound(problem: Path, selftest: SelfTest) -> None:
    checks = problem / "checks.py"
    checks.write_text("import os\n" + checks.read_text())
    (problem / "mutants" / "uses_undefined.py").write_text(
        '"""Forgets the floor.\n\nOverrides: normalize_rows\n"""\n\n\ndef normalize_rows(x):\n'
        '    check_matrix(x)\n    return x / undefined_norm(x)\n')
    ok, output = selftest(problem)
    assert not ok
    assert "checks.py:1:8: F401 `os` imported but unused" in output
    # The patch is linted as materialised (so check_matrix, the reference's import, is defined) and reported with
    # its own line numbers.
    assert "mutants/uses_undefined.py:9:16: F821 Undefined name `undefined_norm`" in output
    assert "check_matrix" not in output.split("lint")[1].split("reference")[0]


def test_the_starter_may_keep_unused_imports(problem: Path, selftest: SelfTest) -> None:
    starter = problem / "starter.py"
    starter.write_text("import math\n\n" + starter.read_text().replace('"""', '"""', 1))
    findings = lint_problem(load_problem(problem))
    assert findings is not None
    assert findings == [] or all("starter.py" not in f or "F401" not in f for f in findings), findings


def test_a_banned_call_that_does_not_exist_is_unsound(problem: Path, selftest: SelfTest) -> None:
    toml = problem / "problem.toml"
    toml.write_text(toml.read_text().replace(
        'tags = ["example"]\n',
        'tags = ["example"]\nbanned_calls = ["torch.nn.functional.normalize", "torch.nn.functional.normalise"]\n'))
    ok, output = selftest(problem)
    assert not ok
    assert "banned_calls names what does not exist here: torch.nn.functional.normalise" in output


def test_the_corpus_is_measured_against_the_catalogue_bar(problem: Path, selftest: SelfTest) -> None:
    reference = (problem / "reference.py").read_text()
    (problem / "mutants" / "undescribed.py").write_text(  # a whole-file mutant with no docstring
        reference.split('"""', 2)[2].lstrip().replace("clamp_min(1e-12)", "clamp_min(1.0)"))
    ok, output = selftest(problem)
    assert ok, output
    assert "warning: mutants with no description (the first docstring line is what a learner" in output
    assert ("warning: below the catalogue's bar for a finished problem: 4 mutants (the catalogue asks 12), 1 mutants "
            "with a Source: line (4), 2 variants (3)") in output


def summary_of(problem: Path, pool: WorkerPool) -> Any:
    (verdict, loaded), = selftest_verdicts([problem], unsafe=True, stream=io.StringIO(), pool=pool)
    return json.loads(json.dumps(verdict_summary(verdict, loaded)))  # what `selftest --json` prints


def test_the_json_summary_of_a_sound_problem_has_its_tables(problem: Path, pool: WorkerPool) -> None:
    summary = summary_of(problem, pool)
    assert summary["sound"] is True and summary["failures"] == []
    clauses = {clause["id"]: clause for clause in summary["clauses"]}
    assert clauses["normalize_rows.zero_row"]["required"] == ["normalize_rows.zero_row"]
    assert sorted(m["name"] for m in summary["mutants"]) == sorted(p.name for p in (problem / "mutants").glob("*.py"))
    assert all(m["caught"] and m["caught_by"] in m["failed"] for m in summary["mutants"])


def test_the_json_summary_of_an_unsound_problem_names_what_is_wrong(problem: Path, pool: WorkerPool) -> None:
    shutil.copy(problem / "reference.py", problem / "mutants" / "not_really_wrong.py")
    summary = summary_of(problem, pool)
    assert summary["sound"] is False
    (uncaught,) = [m for m in summary["mutants"] if not m["caught"]]
    assert uncaught["name"] == "not_really_wrong.py" and uncaught["failed"] == []
    assert any(failure.startswith("mutant not_really_wrong.py") for failure in summary["failures"])


# ------------------------------------------------------------------ the solution learners read (Solution page)


def test_a_private_looking_line_in_the_reference_learners_read_is_warned_about(
    problem: Path, selftest: SelfTest
) -> None:
    reference = problem / "reference.py"
    source = reference.read_text()
    reference.write_text(source + "# Hidden from learners: the trick is the floor.\n")
    ok, output = selftest(problem)
    assert ok, output  # a warning, not a failure
    assert "learners read reference.py on the Solution page, and these lines look private" in output
    line = len(source.splitlines()) + 1
    assert f"reference.py line {line}: # Hidden from learners: the trick is the floor." in output
    assert "1 line(s) look private" in output


def test_a_private_comment_is_stripped_from_what_learners_read_and_not_warned_about(
    problem: Path, selftest: SelfTest
) -> None:
    reference = problem / "reference.py"
    reference.write_text("# private: the secret is the floor\n" + reference.read_text())
    ok, output = selftest(problem)
    assert ok, output
    assert "look private" not in output
    assert "learners read reference.py" in output


def test_a_solution_file_that_does_not_solve_the_problem_is_unsound(problem: Path, selftest: SelfTest) -> None:
    shutil.copy(problem / "mutants" / "no_floor.py", problem / "solution.py")
    ok, output = selftest(problem)
    assert not ok
    assert "solution.py is shown to learners as the solution but does not solve the problem" in output
