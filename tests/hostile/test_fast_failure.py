"""A function that breaks a limit once is not called again in that grading: the checks that need it fail at once,
naming the first event, and the checks of the other functions keep their true verdicts. A call stopped for time
names the line of the learner's code it was running."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from grader.problems import Problem, load_problem
from grader.report import Report
from tests.hostile.hostile_support import assert_unsolved_within

GradeCode = Callable[..., Report]

LOOPING_ADD_ONE = '''import torch


def add_one(x):
    while True:
        x = x + 0


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
'''


def test_a_looping_function_costs_one_call_limit_and_the_other_function_keeps_its_verdicts(
    grade_code: GradeCode,
) -> None:
    report = grade_code(LOOPING_ADD_ONE)
    assert_unsolved_within(report, 3 + 10)  # one call limit (3 s), not one per check
    by_id = {check.id: check for check in report.checks}
    first, second = by_id["add_one.values"], by_id["add_one.fresh_storage"]
    assert first.status == "failed" and first.limit == "time"
    assert first.message.startswith("time limit 3 s exceeded in add_one(x=float32[2, 3])"), first.message
    assert "(it was running line 6 of your code: `x = x + 0`)" in first.message, first.message
    assert second.status == "failed" and second.limit == "time"
    assert second.message == (
        "not run: add_one did not return within 3 s in check ‘add_one adds one to every element’ (an endless loop?)")
    assert [by_id[name].status for name in ("scaled_sum.values", "scaled_sum.gradient", "scaled_sum.bool_factor")] == [
        "passed"] * 3
    assert all(by_id[name].limit is None for name in ("scaled_sum.values", "scaled_sum.gradient"))


def test_a_learner_exception_that_mentions_a_limit_is_not_a_limit(grade_code: GradeCode) -> None:
    # The verdict carries the limit as a field; nothing reads it back out of the message's words.
    report = grade_code(LOOPING_ADD_ONE.replace("while True:\n        x = x + 0",
                                                "raise ValueError('time limit exceeded')"))
    check = next(check for check in report.checks if check.id == "add_one.values")
    assert check.status == "failed" and "time limit exceeded" in check.message and check.limit is None


MAPPED_CHECK = '''

@check("add_one.table", "add_one over a table of inputs")
def add_one_table(sub, ref):
    inputs = [torch.full((2,), float(value)) for value in range(6)]
    for got, x in zip(sub.add_one.map([((x,), {}) for x in inputs]), inputs):
        expect_close(got.unwrap(), ref.add_one(x))
'''

LOOPING_ON_TWO = LOOPING_ADD_ONE.replace("    while True:\n        x = x + 0", (
    "    while float(x.flatten()[0]) == 2.0:\n        x = x + 0\n    return x + 1"))


def test_one_looping_call_of_many_in_one_request_costs_one_call_limit(
    grade_code: GradeCode, adder: Problem, tmp_path: Path,
) -> None:
    # Six calls travel in one request, whose deadline is six call limits; the worker's own clock ends it at the
    # first call that breaks one limit, so the time and the verdict are one call's.
    folder = tmp_path / "adder"
    shutil.copytree(adder.folder, folder)
    (folder / "checks.py").write_text((folder / "checks.py").read_text() + MAPPED_CHECK)
    report = grade_code(LOOPING_ON_TWO, problem=load_problem(folder))
    table = next(check for check in report.checks if check.id == "add_one.table")
    assert table.status == "failed" and table.limit == "time", table.message
    assert table.message.startswith("time limit 3 s exceeded in 6 calls of add_one"), table.message
    # The stack is sampled at an arbitrary moment of the loop: either of its two lines is the truth.
    assert ("(it was running line 6 of your code: `x = x + 0`)" in table.message
            or "(it was running line 5 of your code: `while float(x.flatten()[0]) == 2.0:`)" in table.message), \
        table.message
    assert_unsolved_within(report, 3 + 10)
