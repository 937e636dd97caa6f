"""A child restarted late in the submission's time budget: what ran out is the total time limit, and the
verdict says so (it used to blame the load limit: "time limit 0.001 s exceeded in loading your code")."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from grader.problems import Problem
from grader.report import Report
from tests.hostile.hostile_support import assert_unsolved_within, messages

GradeCode = Callable[..., Report]

# Loading takes 2 s and every call hangs: the first call times out at its 3 s limit (at ~5 s), and the fresh child
# for the checks after it starts loading with ~1 s left of the 6 s total.
SLOW_LOAD_THEN_HANG = '''
import time

time.sleep(2.0)

def add_one(x):
    time.sleep(100)

def scaled_sum(x, factor):
    time.sleep(100)
'''


def test_a_load_cut_short_by_the_total_limit_names_the_total_limit(grade_code: GradeCode, adder: Problem) -> None:
    limits = adder.limits.model_copy(update={"total_timeout_s": 6.0, "load_timeout_s": 5.0})
    problem = dataclasses.replace(adder, spec=adder.spec.model_copy(update={"limits": limits}))
    report = grade_code(SLOW_LOAD_THEN_HANG, problem=problem)
    assert_unsolved_within(report, 6 + 10)
    found = list(messages(report).values())
    blamed_load = [m for m in found if re.search(r"(?<!total )time limit [0-9.]+ s exceeded in loading", m)]
    assert blamed_load == [], blamed_load
    assert "total time limit 6 s for the whole submission used up in loading your code" in found, found
