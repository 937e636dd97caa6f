"""What a submission leaves in /tmp is the template's to remove before it forks the next child. Traps that made
that cleanup raise (a directory with mode 000, a chain of directories deeper than Python's recursion limit, /tmp
itself made unreadable) killed the template, and the next learner waited for a new one to start (31-32 s instead
of 3-6 s). Each trap below is graded on a pool of one template; the next grading must be served by that same
template, started once, with an empty /tmp."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from tests.hostile.conftest import wait_until_all_idle
from tests.hostile.hostile_support import REPO, messages

ECHO_DIR = REPO / "tests" / "fixtures" / "problems" / "echo"

ADDER_FUNCTIONS = '''
def add_one(x):
    return x + 1

def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
'''

LOCKED_DIRECTORY = '''
import os
os.makedirs("/tmp/locked/inner/deeper")
for name in ("a", "b"):
    with open(f"/tmp/locked/inner/{name}", "w") as f:
        f.write("x")
os.chmod("/tmp/locked/inner/deeper", 0)
os.chmod("/tmp/locked/inner", 0)
os.chmod("/tmp/locked", 0)
''' + ADDER_FUNCTIONS

DEEP_NEST = '''
import os
os.chdir("/tmp")
for _ in range(1200):
    os.mkdir("d")
    os.chdir("d")
with open("/tmp/" + "d/" * 1200 + "leaf", "w") as leaf:
    leaf.write("x")
os.chdir("/tmp")
''' + ADDER_FUNCTIONS

TMP_UNREADABLE = '''
import os
os.mkdir("/tmp/kept")
os.symlink("/tmp/kept", "/tmp/link")
os.chmod("/tmp", 0)
''' + ADDER_FUNCTIONS

LIST_TMP = '''
import os
def probe(x):
    return sorted(os.listdir("/tmp"))
'''


@pytest.mark.parametrize("trap", [LOCKED_DIRECTORY, DEEP_NEST, TMP_UNREADABLE],
                         ids=["mode-000-directories", "1200-levels-deep", "tmp-itself-mode-000"])
def test_a_trap_in_tmp_costs_the_next_learner_nothing(fresh_pool: Callable[[int], WorkerPool], adder: Problem,
                                                       adder_correct: str, trap: str) -> None:
    pool = fresh_pool(1)
    assert grade(adder, adder_correct, pool=pool).solved
    wait_until_all_idle(pool)
    (template,) = pool._all  # noqa: SLF001 - the template's identity is what the test is about
    started = pool._counter  # noqa: SLF001 - how many templates this pool has ever started
    assert grade(adder, trap, pool=pool).solved  # the trap is set while loading; the functions are right
    wait_until_all_idle(pool)  # the template has wiped /tmp and forked the next child by now
    report = grade(load_problem(ECHO_DIR), LIST_TMP, pool=pool)
    assert json.loads(messages(report)["probe.echo"].removeprefix("returned: ")) == []
    assert pool._all == [template] and pool._counter == started  # noqa: SLF001
    assert template.alive()
