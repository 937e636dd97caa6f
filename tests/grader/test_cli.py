"""`python -m grader grade`: exit status 0 solved, 1 not solved, 2 usage or problem-folder errors; --json prints
exactly one report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.__main__ import main
from grader.report import Report

REPO = Path(__file__).resolve().parents[2]
ADDER = REPO / "tests" / "fixtures" / "problems" / "adder"
CORRECT = REPO / "tests" / "fixtures" / "problems" / "adder" / "reference.py"


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)], cwd=REPO, capture_output=True, text=True, timeout=300,
        check=False, env={**os.environ, "NO_COLOR": "1"},
    )


def one_report(stdout: str) -> Report:
    lines = stdout.splitlines()
    assert len(lines) == 1 and stdout.endswith("\n"), stdout[:500]
    return Report.model_validate(json.loads(lines[0]))


# ------------------------------------------------------------------------------------ usage errors: exit 2


def test_unknown_problem(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "no-such-problem", str(CORRECT), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: no problem folder 'no-such-problem'")


def test_missing_submission_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["grade", str(ADDER), str(tmp_path / "nope.py")]) == 2
    assert "error: cannot read submission" in capsys.readouterr().err


def test_submission_too_large(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_text("#" * (1024 * 1024 + 1))
    assert main(["grade", str(ADDER), str(big)]) == 2
    assert "the limit is 1048576" in capsys.readouterr().err


def test_broken_problem_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "adder"
    shutil.copytree(ADDER, broken)
    (broken / "problem.toml").write_text((broken / "problem.toml").read_text().replace('"easy"', '"trivial"'))
    assert main(["grade", str(broken), str(CORRECT), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{broken / 'problem.toml'}:4: difficulty:" in captured.err


@pytest.mark.parametrize("argv", [[], ["grade"], ["grade", "adder"], ["frobnicate"]])
def test_bad_usage(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert "usage:" in capsys.readouterr().err


def test_usage_error_through_python_dash_m() -> None:
    completed = cli("grade", "no-such-problem", CORRECT)
    assert completed.returncode == 2 and completed.stdout == ""
    assert "no problem folder" in completed.stderr


# ------------------------------------------------------------------------------------------------ grading


@pytest.mark.sandbox
def test_solved_json(need_sandbox: None) -> None:
    completed = cli("grade", ADDER, CORRECT, "--json")
    assert completed.returncode == 0, completed.stderr[-2000:]
    report = one_report(completed.stdout)
    assert report.solved and report.status == "passed" and report.sandbox == "bubblewrap"
    assert report.problem == "adder" and len(report.checks) == 5
    assert report.limits["call_timeout_s"] == 3


@pytest.mark.sandbox
def test_solved_text_summary(need_sandbox: None) -> None:
    completed = cli("grade", ADDER, CORRECT)
    assert completed.returncode == 0, completed.stderr[-2000:]
    out = completed.stdout
    assert "\x1b[" not in out
    assert "add_one\n  PASS add_one adds one to every element" in out
    assert out.rstrip().splitlines()[-1].startswith("SOLVED: 5 / 5 checks passed in ")
    assert "WITHOUT a sandbox" not in out


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "source, expected",
    [
        pytest.param(ADDER / "mutants" / "in_place.py", "modified its argument(s) x in place", id="wrong"),
        pytest.param(ADDER / "starter.py", "raised NotImplementedError: add_one", id="starter"),
        pytest.param(REPO / "tests" / "hostile" / "submissions" / "segfault.py", "segmentation fault", id="crash"),
    ],
)
def test_not_solved_exits_1(need_sandbox: None, source: Path, expected: str) -> None:
    completed = cli("grade", ADDER, source, "--json")
    assert completed.returncode == 1, completed.stderr[-2000:]
    report = one_report(completed.stdout)
    assert not report.solved
    assert any(expected in check.message for check in report.checks), [c.message for c in report.checks]


@pytest.mark.sandbox
def test_load_failure_text_summary(need_sandbox: None, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\n\ndef add_one(x)\n    return x\n")
    completed = cli("grade", ADDER, broken)
    assert completed.returncode == 1
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("load error (line 3): your code failed to load: SyntaxError")
    assert "  SKIP add_one adds one to every element" in completed.stdout
    assert lines[-1].startswith("NOT SOLVED: 0 / 5 checks passed")


def test_unsafe_no_sandbox_is_flagged() -> None:
    completed = cli("grade", ADDER, CORRECT, "--json", "--unsafe-no-sandbox")
    assert completed.returncode == 0, completed.stderr[-2000:]
    report = one_report(completed.stdout)
    assert report.sandbox == "none" and report.solved
    assert json.loads(completed.stdout)["sandbox"] == "none"


# ------------------------------------------------------------------------------------------- grader messages

PATCH = '''"""This is what you get when you divide by the norm without a floor: a zero row becomes nan.

Overrides: normalize_rows
"""


def normalize_rows(x):
    check_matrix(x)
    return x / x.norm(dim=1, keepdim=True)
'''


@pytest.fixture
def scaffolded(tmp_path: Path) -> Path:
    from grader.scaffold import create_problem

    return create_problem("sample", tmp_path / "problems")


def test_messages_prints_the_first_failure_of_every_mutant(
    scaffolded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scaffolded / "mutants" / "patched_no_floor.py").write_text(PATCH)
    assert main(["messages", str(scaffolded), "--unsafe-no-sandbox"]) == 0
    out = capsys.readouterr().out
    names = sorted(p.name for p in (scaffolded / "mutants").glob("*.py"))
    assert [line.split("  ")[0] for line in out.splitlines() if line.endswith(".py") or ".py  (" in line] == names
    block = out.split("patched_no_floor.py  (This is what you get when you divide by the norm without a floor")[1]
    assert block.splitlines()[1].startswith("  normalize_rows.zero_row: A zero row stays zero")
    assert block.splitlines()[2].startswith("    | the result: 2 of 4 values differ")
    assert "2 are nan or infinite" in block.splitlines()[2]
    assert out.rstrip().splitlines()[-1].startswith(f"sample: {len(names)} mutant(s) graded through one warm pool in")


def test_messages_exits_1_and_names_a_mutant_no_check_fails(
    scaffolded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(scaffolded / "reference.py", scaffolded / "mutants" / "correct_after_all.py")
    assert main(["messages", str(scaffolded), "--unsafe-no-sandbox"]) == 1
    out = capsys.readouterr().out
    assert "no check fails: a learner with this code would be told nothing is wrong" in out
    assert out.rstrip().splitlines()[-1] == "no check fails on: correct_after_all.py"


def test_messages_refuses_a_malformed_patch_with_its_line(
    scaffolded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scaffolded / "mutants" / "bad.py").write_text(PATCH.replace("Overrides: normalize_rows", "Overrides: nope"))
    assert main(["messages", str(scaffolded), "--unsafe-no-sandbox"]) == 2
    assert f"{scaffolded / 'mutants' / 'bad.py'}:3: the patch says it overrides nope" in capsys.readouterr().err


# ------------------------------------------------------------------------------ the sandbox starts first


def test_the_cli_and_the_launcher_import_no_torch() -> None:
    # `grade` starts its template, which imports torch in its own sandbox, before this process imports torch: if
    # the CLI's module or the launcher pulled torch in, the two imports would run one after the other again.
    probe = ("import sys, grader.__main__, grader.launch; "
             "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith(('torch.', 'numpy'))))")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert completed.stdout.strip() == "[]"


@pytest.mark.sandbox
def test_a_pool_adopts_the_template_started_early(need_sandbox: None) -> None:
    from grader.judge import grade
    from grader.launch import start_early
    from grader.pool import WorkerPool
    from grader.problems import load_problem
    from tests.conftest import assert_pool_removed

    early = start_early()
    assert early is not None
    pool = WorkerPool(size=1, fork_ahead=False, early=early)
    try:
        report = grade(load_problem(ADDER), Path(CORRECT).read_text(), pool=pool)
        assert report.solved and report.sandbox == "bubblewrap"
        assert [template.name for template in pool._all] == ["t1"]  # adopted, not a second one started
        assert pool._all[0].process is early.launched.process
    finally:
        pool.close()
    assert_pool_removed(pool)
    assert early.launched.process.poll() is not None


@pytest.mark.sandbox
def test_a_pool_closed_before_it_started_stops_the_early_template(need_sandbox: None) -> None:
    from grader.launch import start_early
    from grader.pool import WorkerPool

    early = start_early()
    assert early is not None
    WorkerPool(size=1, fork_ahead=False, early=early).close()
    assert early.launched.process.wait(timeout=10) is not None
    assert not any(path.exists() for path in early.cgroup.paths.values())


@pytest.mark.sandbox
def test_an_early_template_is_not_adopted_where_the_probe_fails(need_sandbox: None) -> None:
    # The probe runs beside the judge's imports, after the template was launched: a sandbox it finds wanting
    # must still end in its reason, with the template stopped, as when it ran first.
    from concurrent.futures import Future

    from grader.launch import start_early
    from grader.pool import WorkerPool
    from grader.sandbox import SandboxStatus, SandboxUnavailable

    early = start_early()
    assert early is not None
    early.status.result()
    failed: Future[SandboxStatus] = Future()
    failed.set_result(SandboxStatus(False, "no user namespaces on this machine"))
    early.status = failed
    pool = WorkerPool(size=1, fork_ahead=False, early=early)
    with pytest.raises(SandboxUnavailable, match="no user namespaces on this machine"):
        pool.start()
    pool.close()
    assert early.launched.process.wait(timeout=10) is not None
    assert not any(path.exists() for path in early.cgroup.paths.values())


def test_a_report_piped_to_a_reader_arrives_whole_before_the_process_leaves() -> None:
    # `grade` leaves without tearing the interpreter down: what it printed must be flushed first, all of it.
    completed = cli("grade", ADDER, CORRECT)
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.rstrip().splitlines()[-1].startswith("SOLVED: ")
    assert one_report(cli("grade", ADDER, CORRECT, "--json").stdout).solved
