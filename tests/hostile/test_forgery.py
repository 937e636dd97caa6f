"""A submission cannot forge its verdict: fake reports on stdout, patched torch comparisons, results that claim
to equal anything, exceptions a naive worker would not catch, and frames it writes on the judge's socket."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.report import Report
from tests.hostile.hostile_support import ADDER_DIR, REPO, SUBMISSIONS, assert_unsolved_within, messages, submission

GradeCode = Callable[..., Report]


def grade_with_cli(path: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(ADDER_DIR), str(path), "--json"],
        cwd=REPO, capture_output=True, timeout=300, check=False,
    )


def only_report(stdout: bytes) -> Report:
    """stdout must be exactly one JSON document, one line, nothing else."""
    assert stdout.endswith(b"\n") and stdout.count(b"\n") == 1, stdout[:300]
    return Report.model_validate(json.loads(stdout))


@pytest.mark.parametrize("name", ["fake_report", "huge_output"])
def test_cli_stdout_is_exactly_one_honest_report(name: str) -> None:
    completed = grade_with_cli(SUBMISSIONS / f"{name}.py")
    assert completed.returncode == 1, completed.stderr[-2000:]
    report = only_report(completed.stdout)
    assert report.problem == "adder" and report.sandbox == "bubblewrap"
    assert report.solved is False and report.status in ("failed", "error")
    assert len(completed.stderr) < 64 * 1024  # the submission's fd 2 does not reach the CLI's stderr either


def test_fake_report_then_exit_is_a_load_failure(grade_code: GradeCode) -> None:
    report = grade_code(submission("fake_report"))
    assert_unsolved_within(report, 20)
    assert report.error is not None
    assert "exit status 0" in report.error.message and "loading your code" in report.error.message


def test_patched_torch_comparisons_do_not_fool_the_judge(grade_code: GradeCode) -> None:
    report = grade_code(submission("patch_torch"))
    assert_unsolved_within(report, 30)
    found = messages(report)
    assert found["add_one.values"].startswith("the result: 6 of 6 values differ")
    assert "expected 1, got 5" in found["add_one.values"]  # x[0] = 0: reference 0 + 1, learner's 0 + 5
    assert "modified its argument(s) x in place" in found["add_one.fresh_storage"]
    assert found["scaled_sum.values"] == "the result: expected 16.25, got 17.25 (rtol=1e-07, atol=1e-09)"
    assert "no gradient could flow back to x: the result does not require grad" in found["scaled_sum.gradient"]


def test_results_that_claim_to_equal_anything_fail(grade_code: GradeCode) -> None:
    report = grade_code(submission("liar_results"))
    assert_unsolved_within(report, 30)
    found = messages(report)
    assert found["add_one.values"] == (
        "the result: expected a torch.Tensor, got Opaque <Liar (a torch.Tensor subclass) object>")
    assert found["scaled_sum.values"] == "the result: expected a torch.Tensor, got Opaque <EqualsEverything object>"
    assert "but it returned <EqualsEverything object>" in found["scaled_sum.bool_factor"]


def test_base_exceptions_are_reported_not_obeyed(grade_code: GradeCode) -> None:
    report = grade_code(submission("base_exceptions"))
    assert_unsolved_within(report, 30)
    found = messages(report)
    assert found["add_one.values"] == (
        "add_one(x=float32[2, 3]) raised KeyboardInterrupt: pressed ctrl-c (line 10 of your code)")
    assert found["scaled_sum.values"].endswith("raised SystemExit: 0 (line 15 of your code)")
    assert found["scaled_sum.gradient"].endswith("raised Escape: custom base exception (line 16 of your code)")


@pytest.mark.parametrize(
    "code, expected",
    [
        pytest.param("raise SystemExit(3)\n", "SystemExit: 3 (line 1 of your code)", id="system-exit"),
        pytest.param("import sys\nsys.exit('bye')\n", "SystemExit: bye (line 2 of your code)", id="sys-exit"),
        pytest.param("raise KeyboardInterrupt\n", "KeyboardInterrupt (line 1 of your code)", id="keyboard-interrupt"),
        pytest.param("class Out(BaseException):\n    pass\n\n\nraise Out('gone')\n", "Out: gone (line 5 of your code)",
                     id="custom-base-exception"),
        pytest.param("class E(Exception):\n    def __str__(self):\n        raise E()\n\n\nraise E()\n",
                     "E: <the exception's message could not be read> (line 6 of your code)", id="hostile-str"),
    ],
)
def test_exceptions_at_import_fail_the_load(grade_code: GradeCode, code: str, expected: str) -> None:
    report = grade_code(code)
    assert_unsolved_within(report, 20)
    assert report.error is not None and report.error.kind == "load"
    assert report.error.message == f"your code failed to load: {expected}"
    assert {check.status for check in report.checks} == {"skipped"}


def test_forged_frame_from_the_sandbox_is_blamed_on_the_submission(grade_code: GradeCode) -> None:
    # The learner's code shares the worker's process, so it can write any bytes on the job socket. A header
    # the judge's JSON parser cannot handle (100,000 nested arrays -> RecursionError) must fail the check as
    # a malformed message from the worker, not crash it as "a bug in the problem's checks" (status error).
    report = grade_code(submission("forged_frame"))
    assert_unsolved_within(report, 30)
    check = report.checks[0]
    assert check.status == "failed", (check.status, check.message)
    assert "malformed message" in check.message
    assert report.status == "failed"
