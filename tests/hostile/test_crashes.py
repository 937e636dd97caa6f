"""Crashes of the learner's code: segfaults, recursion, syntax errors, missing functions, early exits."""

from __future__ import annotations

from collections.abc import Callable

from grader.report import Report
from tests.hostile.hostile_support import assert_unsolved_within, messages, submission

GradeCode = Callable[..., Report]


def test_segfault(grade_code: GradeCode) -> None:
    report = grade_code(submission("segfault"))
    assert_unsolved_within(report, 30)
    found = messages(report)
    assert found["add_one.values"] == (
        "the worker process crashed with a segmentation fault during add_one(x=float32[2, 3])")
    assert [c.status for c in report.checks if c.group == "scaled_sum"] == ["passed", "passed", "passed"]


def test_unbounded_recursion(grade_code: GradeCode) -> None:
    report = grade_code(submission("recursion"))
    assert_unsolved_within(report, 30)
    assert messages(report)["add_one.values"] == (
        "add_one(x=float32[2, 3]) raised RecursionError: maximum recursion depth exceeded (line 3 of your code)")


def test_deep_recursion_is_reported_as_recursion(grade_code: GradeCode) -> None:
    # 100,000 frames of recursion take a fraction of a second; the worker then summarises the exception with
    # traceback.extract_tb over every frame (a linecache lookup per frame) and runs out the 3 s call limit.
    # The learner is told "time limit exceeded" for code that failed fast with a RecursionError.
    report = grade_code(submission("deep_recursion"))
    assert_unsolved_within(report, 30)
    message = messages(report)["add_one.values"]
    assert "RecursionError" in message, message


def test_a_recursion_limit_past_the_cap_is_lowered_to_it(grade_code: GradeCode) -> None:
    # sys.setrecursionlimit(10**7) is lowered to 10,000 frames: the runaway recursion ends in RecursionError
    # (not in the memory limit, nor in a call that outlives its time limit while millions of frames unwind), and
    # sys.getrecursionlimit() says what the limit is.
    report = grade_code(submission("runaway_recursion"))
    message = messages(report)["add_one.values"]
    assert "RecursionError" in message, message
    assert next(check for check in report.checks if check.id == "add_one.values").limit is None
    assert "the recursion limit is 10000" in messages(report)["scaled_sum.values"]


def test_syntax_error_gives_the_line(grade_code: GradeCode) -> None:
    report = grade_code("import torch\n\n\ndef add_one(x)\n    return x + 1\n")
    assert_unsolved_within(report, 20)
    assert report.error is not None and report.error.kind == "load"
    assert report.error.line == 4
    assert report.error.message.startswith("your code failed to load: SyntaxError: expected ':'")
    assert report.error.message.endswith("(line 4 of your code)")


def test_indentation_error_gives_the_line(grade_code: GradeCode) -> None:
    report = grade_code("def add_one(x):\nreturn x + 1\n")
    assert report.error is not None and report.error.line == 2
    assert "IndentationError" in report.error.message


def test_error_at_import_gives_the_line(grade_code: GradeCode) -> None:
    report = grade_code("import torch\n\nx = torch.ones(2)\ny = x[5]\n")
    assert report.error is not None and report.error.line == 4
    assert report.error.message.startswith("your code failed to load: IndexError: index 5 is out of bounds")


def test_missing_functions(grade_code: GradeCode) -> None:
    report = grade_code(submission("no_functions"))
    assert_unsolved_within(report, 20)
    assert report.error is None
    found = messages(report)
    assert found["add_one.values"] == "your code defines no function add_one (expected add_one(x))"
    assert found["scaled_sum.values"] == "your code defines no function scaled_sum (expected scaled_sum(x, factor))"
    assert {check.status for check in report.checks} == {"failed"}


def test_a_function_that_is_not_callable_counts_as_missing(grade_code: GradeCode) -> None:
    report = grade_code("add_one = 3\n\ndef scaled_sum(x, factor):\n    return x.sum() * factor\n")
    assert messages(report)["add_one.values"].startswith("your code defines no function add_one")


def test_os_exit_in_a_function(grade_code: GradeCode) -> None:
    code = "import os\n\ndef add_one(x):\n    os._exit(7)\n\ndef scaled_sum(x, factor):\n    os._exit(0)\n"
    report = grade_code(code)
    assert_unsolved_within(report, 30)
    found = messages(report)
    assert "your code ended the worker process (exit status 7" in found["add_one.values"]
    assert "during add_one(x=float32[2, 3])" in found["add_one.values"]


def test_exit_is_seen_even_when_a_helper_process_holds_the_socket(grade_code: GradeCode) -> None:
    # The worker os._exit()s at once, but a process it forked keeps a copy of the job socket open. The judge
    # decides completion by reading the socket, so it waits out the 3 s call limit and reports a timeout
    # Completion is decided by watching the child process, not the pipe.
    report = grade_code(submission("grandchild_exits_parent"))
    assert_unsolved_within(report, 30)
    check = report.checks[0]
    assert "exit status 0" in check.message, check.message
    assert check.duration_ms < 2500


def test_a_sparse_result_is_named_and_the_worker_lives_on(grade_code: GradeCode) -> None:
    # A sparse result, and a sparse gradient: reading either raised inside the worker and ended it, and the learner
    # was told their code had called os._exit. Now the call is answered, and the next checks run in the same worker.
    report = grade_code('''
import torch

def add_one(x):
    return (x + 1).to_sparse()

def scaled_sum(x, factor):
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        raise TypeError("factor must be a Python number")
    return SparseGradientSum.apply(x) * factor

class SparseGradientSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return x.sum()

    @staticmethod
    def backward(ctx, grad):
        return (torch.ones(ctx.shape, dtype=grad.dtype) * grad).to_sparse()
''')
    assert_unsolved_within(report, 30)
    found = messages(report)
    assert "<unencodable result (a torch.sparse_coo tensor; return a dense one) object>" in found["add_one.values"]
    assert "os._exit" not in " ".join(found.values())
    assert "the gradient came back as a torch.sparse_coo tensor" in found["scaled_sum.gradient"]
    assert found["scaled_sum.values"] == ""


def test_an_integer_beyond_64_bits_is_a_value_named_not_a_malformed_reply(grade_code: GradeCode) -> None:
    report = grade_code('''
def add_one(x):
    return 2**70

def scaled_sum(x, factor):
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        raise TypeError("factor must be a Python number")
    return x.sum() * factor
''')
    assert_unsolved_within(report, 30)
    found = messages(report)
    assert "<unencodable result (an integer beyond 64 bits) object>" in found["add_one.values"]
    assert "malformed" not in " ".join(found.values())
