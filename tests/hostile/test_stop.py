"""The learner's Stop button, engine side: setting a grading's CancelToken ends it at once, even in a call that
loops; checks done by then keep their verdicts, the others are "stopped by you", the child is killed and the pool
grades the next submission as if nothing happened. The judge says which call it is waiting on (CallStarted),
from the moment it sent it."""

from __future__ import annotations

import re
import select
import threading
import time

import pytest

from grader.cancel import CallStarted, CancelToken
from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem
from grader.report import Report

# add_one is correct, so its checks finish; scaled_sum spins, holding the grading until it is stopped.
LOOPING_SCALED_SUM = '''import torch


def add_one(x):
    return x + 1


def scaled_sum(x, factor):
    while True:
        x = x + 0
'''

LOOPING_AT_IMPORT = '''import torch

while True:
    pass
'''


class Watched:
    """A grading in a thread, with the CallStarted facts it announced and the moment its report came."""

    def __init__(self, problem: Problem, code: str, pool: WorkerPool, token: CancelToken) -> None:
        self.calls: list[CallStarted | None] = []
        self.report: Report | None = None
        self.finished_at = 0.0
        self._thread = threading.Thread(target=self._run, args=(problem, code, pool, token))
        self._thread.start()

    def _run(self, problem: Problem, code: str, pool: WorkerPool, token: CancelToken) -> None:
        self.report = grade(problem, code, pool=pool, cancel=token, on_call=self.calls.append)
        self.finished_at = time.monotonic()

    def wait_for_call(self, function: str, timeout: float = 30.0) -> None:
        end = time.monotonic() + timeout
        while not any(call is not None and call.function == function for call in self.calls):
            assert time.monotonic() < end, f"the judge never sent a call of {function!r}: {self.calls}"
            time.sleep(0.02)

    def join(self, timeout: float = 30.0) -> Report:
        self._thread.join(timeout)
        assert self.report is not None, "the grading did not end"
        return self.report


def stopped_after(
    watched: Watched, token: CancelToken, function: str, *, running_s: float = 0.8
) -> tuple[Report, float]:
    """Stop the grading once `function` has been running `running_s`: (report, seconds from stop to report)."""
    watched.wait_for_call(function)
    time.sleep(running_s)
    stopped_at = time.monotonic()
    token.cancel()
    report = watched.join()
    return report, watched.finished_at - stopped_at


def test_a_stop_ends_a_looping_call_at_once_and_keeps_the_finished_verdicts(
    adder: Problem, sandbox_pool: WorkerPool
) -> None:
    with CancelToken() as token:
        watched = Watched(adder, LOOPING_SCALED_SUM, sandbox_pool, token)
        report, seconds = stopped_after(watched, token, "scaled_sum")
    assert seconds < 1.5, f"the stop took {seconds:.2f} s; the call limit is {adder.limits.call_timeout_s} s"
    assert report.stopped and not report.solved and report.status == "failed" and report.error is None
    by_id = {check.id: check for check in report.checks}
    assert [by_id[name].status for name in ("add_one.values", "add_one.fresh_storage")] == ["passed", "passed"]
    running = by_id["scaled_sum.values"]
    assert running.status == "skipped" and running.limit is None
    assert running.message.startswith("stopped by you during scaled_sum(x=float64[3] [1, 2, 3.5], factor=2.5)"), (
        running.message)
    assert re.search(r"\(it was running line (9|10) of your code: `(while True:|x = x \+ 0)`\)$", running.message), (
        running.message)
    for name in ("scaled_sum.gradient", "scaled_sum.bool_factor"):
        assert (by_id[name].status, by_id[name].message) == ("skipped", "not run: stopped by you")


def test_the_pool_grades_the_next_submission_after_a_stop(
    adder: Problem, adder_correct: str, sandbox_pool: WorkerPool
) -> None:
    with CancelToken() as token:
        stopped_after(Watched(adder, LOOPING_SCALED_SUM, sandbox_pool, token), token, "scaled_sum", running_s=0.2)
    for _ in range(sandbox_pool.size + 1):  # every template, the one whose child was killed included
        report = grade(adder, adder_correct, pool=sandbox_pool)
        assert report.solved and not report.stopped, report.model_dump_json()


def test_a_stop_while_the_code_loads_ends_loading(adder: Problem, sandbox_pool: WorkerPool) -> None:
    with CancelToken() as token:
        watched = Watched(adder, LOOPING_AT_IMPORT, sandbox_pool, token)
        report, seconds = stopped_after(watched, token, "")
    assert seconds < 1.5 and report.stopped and report.error is None and not report.solved
    assert {check.status for check in report.checks} == {"skipped"}
    # The sampled line of a two-line loop may be either of them.
    assert re.match(r"not run: stopped by you while your code was loading \(it was running line [34] of your code",
                    report.checks[0].message), report.checks[0].message


def test_a_token_set_before_the_grading_runs_nothing(adder: Problem, adder_correct: str,
                                                     sandbox_pool: WorkerPool) -> None:
    with CancelToken() as token:
        token.cancel()
        report = grade(adder, adder_correct, pool=sandbox_pool, cancel=token)
    assert report.stopped and not report.solved
    assert [check.message for check in report.checks] == ["not run: stopped by you"] * len(adder.checks)


def test_the_judge_announces_each_request_it_sends_and_when_none_is_waiting(
    adder: Problem, adder_correct: str, sandbox_pool: WorkerPool
) -> None:
    calls: list[CallStarted | None] = []
    before = time.time()
    report = grade(adder, adder_correct, pool=sandbox_pool, on_call=calls.append)
    assert report.solved
    started = [call for call in calls if call is not None]
    assert started[0].function == ""  # loading the module
    assert {call.function for call in started[1:]} == {"add_one", "scaled_sum"}
    assert all(before <= call.started_at <= time.time() for call in started)
    assert calls[-1] is None, "the judge must say when it no longer waits on the worker"


@pytest.mark.parametrize("times", [1, 2])
def test_a_cancel_token_is_readable_once_set_however_often(times: int) -> None:
    with CancelToken() as token:
        assert select.select([token.fileno()], [], [], 0)[0] == [] and not token.cancelled
        for _ in range(times):
            token.cancel()
        assert select.select([token.fileno()], [], [], 0)[0] == [token.fileno()] and token.cancelled

