"""`python -m grader selftest`: a sound problem passes; each way a battery can be unsound is caught and named."""

import io
import re
import shutil

import pytest

from grader.pool import WorkerPool
from grader.scaffold import create_problem
from grader.selftest import run_selftest


@pytest.fixture(scope="module")
def pool():
    """One warm pool for the module: starting one costs seconds (it imports torch); grading costs milliseconds.
    Unsandboxed: these tests are about the self-test's logic, and the code graded is the test's own."""
    with WorkerPool(size=1, unsafe=True) as pool:
        yield pool


@pytest.fixture
def problem(tmp_path):
    """A fresh, sound problem (the scaffold's example) in a temporary problems directory."""
    return create_problem("sample", tmp_path / "problems")


@pytest.fixture
def selftest(pool):
    def run(*folders):
        out = io.StringIO()
        ok = run_selftest(list(folders), unsafe=True, stream=out, pool=pool)
        return ok, out.getvalue()

    return run


def test_sound_problem_passes_and_prints_the_mutant_table(problem, selftest):
    ok, output = selftest(problem)
    assert ok, output
    assert "first required check that caught it" in output
    for mutant in (problem / "mutants").glob("*.py"):
        row = next(line for line in output.splitlines() if line.strip().startswith(mutant.name))
        assert re.search(r"\S+\.\S+\s+\d+$", row.strip()), row  # check id, then how many checks failed
    assert output.rstrip().splitlines()[-1] == "selftest passed: 1 problem(s) sound"


def test_mutant_no_required_check_catches_fails_and_is_named(problem, selftest):
    shutil.copy(problem / "reference.py", problem / "mutants" / "not_really_wrong.py")
    ok, output = selftest(problem)
    assert not ok
    assert "mutant not_really_wrong.py: no required check caught it" in output
    assert "selftest FAILED: 1 of 1 problem(s) unsound: sample" in output


def test_mutant_caught_only_by_an_advisory_check_is_not_caught(problem, selftest):
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
        reference.replace("    _check_matrix(x)\n", "    _check_matrix(x)\n    print('debug')\n"))
    ok, output = selftest(problem)
    assert not ok
    assert "mutant chatty.py: no required check caught it (only advisory: style.quiet)" in output


def test_flaky_check_is_detected(problem, selftest):
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


def test_broken_problem_toml_gives_file_and_line(problem, selftest):
    toml = problem / "problem.toml"
    lines = toml.read_text().splitlines()
    number = next(i for i, line in enumerate(lines, start=1) if line.startswith("difficulty"))
    lines[number - 1] = 'difficulty = "impossible"'
    toml.write_text("\n".join(lines) + "\n")
    ok, output = selftest(problem)
    assert not ok
    assert f"{toml}:{number}: difficulty:" in output


def test_variant_that_fails_a_check_is_reported(problem, selftest):
    shutil.copy(problem / "mutants" / "no_floor.py", problem / "variants" / "actually_wrong.py")
    ok, output = selftest(problem)
    assert not ok
    assert "actually_wrong.py: normalize_rows.zero_row failed" in output


def test_starter_that_does_not_load_is_reported(problem, selftest):
    (problem / "starter.py").write_text("def normalize_rows(x):\n    return (\n")
    ok, output = selftest(problem)
    assert not ok
    assert "the starter must load and run" in output


def test_reference_failing_a_check_is_reported(problem, selftest):
    reference = problem / "reference.py"
    reference.write_text(reference.read_text().replace("clamp_min(1e-12)", "clamp_min(1e-12) * 2"))
    ok, output = selftest(problem)
    assert not ok
    assert "the reference must pass every check" in output
    assert "normalize_rows.hand_example failed" in output


def test_sound_and_broken_problems_together(problem, tmp_path, selftest):
    broken = create_problem("broken", tmp_path / "problems")
    (broken / "checks.py").write_text("x = 1\n")
    ok, output = selftest(problem, broken)
    assert not ok
    assert "defines no @check functions" in output
    assert "selftest FAILED: 1 of 2 problem(s) unsound: broken" in output


PATCH_NO_FLOOR = '''"""This is what you get when you divide by the norm itself: a zero row becomes 0 / 0 = nan.

Overrides: normalize_rows
"""


def normalize_rows(x):
    _check_matrix(x)  # the reference's own helper: a patch sees everything the reference defines
    return x / x.norm(dim=1, keepdim=True)
'''


def test_a_patch_mutant_is_graded_on_top_of_the_reference(problem, selftest):
    (problem / "mutants" / "patched_no_floor.py").write_text(PATCH_NO_FLOOR)
    ok, output = selftest(problem)
    assert ok, output
    row = next(line for line in output.splitlines() if line.strip().startswith("patched_no_floor.py"))
    assert "normalize_rows.zero_row" in row, row


def test_a_patch_that_does_not_define_what_it_overrides_is_unsound(problem, selftest):
    (problem / "mutants" / "broken_patch.py").write_text(
        PATCH_NO_FLOOR.replace("Overrides: normalize_rows", "Overrides: normalize_rows, normalise_all"))
    ok, output = selftest(problem)
    assert not ok
    assert "mutant broken_patch.py: malformed:" in output
    assert "the patch says it overrides normalise_all but does not define it" in output
