"""Preparing a grading host (grader/prepare.py): every problem's first-grading work done ahead, on a thread of its
own, only while nothing is graded; and a verdict that does not depend on whether it was done."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench.inprocess import InProcessPool
from grader.cancel import CancelToken
from grader.contract.search import drawn_examples
from grader.judge import grade
from grader.prepare import Activity, Preparer, preparation_steps
from grader.problems import Problem, load_problem
from grader.refcache import answers_for
from grader.report import Report
from tests import waiting

REPO = Path(__file__).resolve().parent.parent.parent
BLEND = REPO / "tests" / "fixtures" / "problems" / "blend"
WAIT_S = 30.0
eventually = partial(waiting.eventually, within_s=WAIT_S)


@dataclass
class FakeCheck:
    preparations: tuple[Callable[[], object], ...]


@dataclass
class FakeProblem:
    slug: str
    checks: list[FakeCheck]


@dataclass
class Steps:
    """Problems whose steps record that they ran."""

    ran: list[str] = field(default_factory=list)

    def problem(self, slug: str, count: int, *, busy_after_first: threading.Event | None = None) -> Any:
        """`slug` with `count` steps; where `busy_after_first` is given, a submission arrives (it is set) as soon as
        the first step has run."""
        steps = [self._step(f"{slug}.{i}") for i in range(count)]
        if busy_after_first is not None:
            steps[0] = self._then_busy(steps[0], busy_after_first)
        return FakeProblem(slug, [FakeCheck(tuple(steps))])

    @staticmethod
    def _then_busy(step: Callable[[], object], busy: threading.Event) -> Callable[[], object]:
        def step_then_a_submission_arrives() -> None:
            step()
            busy.set()

        return step_then_a_submission_arrives

    def _step(self, name: str) -> Callable[[], object]:
        return lambda: self.ran.append(name)


def started(problems: list[Any], idle: Callable[[], bool], after_each: Callable[[], None] = lambda: None, *,
            grade_reference: Callable[[Any, CancelToken], Any] | None = None) -> Preparer:
    """A running preparer. Its `after_each` records instead of settling: a test must not freeze pytest's heap."""
    preparer = Preparer(lambda: problems, idle, poll_s=0.005, after_each=after_each, grade_reference=grade_reference)
    preparer.start()
    return preparer


# ---------------------------------------------------------------------------------------------- the host's activity


def test_a_host_is_idle_when_nothing_runs() -> None:
    assert Activity().idle()


def test_a_host_is_busy_while_any_grading_runs_and_idle_after_the_last() -> None:
    activity = Activity()
    with activity.running():
        with activity.running():
            assert not activity.idle()
        assert not activity.idle()
    assert activity.idle()


def test_a_grading_that_raises_still_leaves_the_host_idle() -> None:
    activity = Activity()
    with pytest.raises(RuntimeError), activity.running():
        raise RuntimeError("the database went away")
    assert activity.idle()


# ---------------------------------------------------------------------------------------------- the preparer


def test_every_step_of_every_problem_runs_once_in_order_when_the_host_is_idle() -> None:
    steps = Steps()
    preparer = started([steps.problem("a", 2), steps.problem("b", 1)], lambda: True)
    eventually(lambda: preparer.done, "the preparer finished")
    assert steps.ran == ["a.0", "a.1", "b.0"]
    assert preparer.prepared == 2


def test_no_step_runs_while_the_host_grades() -> None:
    steps, busy = Steps(), threading.Event()
    busy.set()
    preparer = started([steps.problem("a", 3)], lambda: not busy.is_set())
    time.sleep(0.3)
    assert steps.ran == [] and preparer.prepared == 0 and not preparer.done
    busy.clear()
    eventually(lambda: preparer.done, "the preparer finished once the host was idle")
    assert steps.ran == ["a.0", "a.1", "a.2"]


def test_the_preparer_asks_again_before_every_step() -> None:
    """A submission that arrives between two steps pauses the rest, not only the next problem."""
    steps, busy = Steps(), threading.Event()
    problem = steps.problem("a", 3, busy_after_first=busy)
    preparer = started([problem], lambda: not busy.is_set())
    eventually(lambda: steps.ran == ["a.0"], "the first step ran")
    time.sleep(0.3)
    assert steps.ran == ["a.0"]
    busy.clear()
    eventually(lambda: preparer.done, "the rest ran once the host was idle")
    assert steps.ran == ["a.0", "a.1", "a.2"]


def test_after_each_problem_the_heap_is_settled_once_the_host_is_idle_again() -> None:
    steps, busy = Steps(), threading.Event()
    settled: list[list[str]] = []
    problem = steps.problem("a", 1, busy_after_first=busy)
    preparer = started([problem, steps.problem("b", 1)], lambda: not busy.is_set(),
                       after_each=lambda: settled.append(list(steps.ran)))
    eventually(lambda: steps.ran == ["a.0"], "a's step ran")
    time.sleep(0.3)
    assert settled == [] and preparer.prepared == 0  # never while a grading runs: it would freeze its objects
    busy.clear()
    eventually(lambda: preparer.done, "the preparer finished")
    assert settled == [["a.0"], ["a.0", "b.0"]]


SETTLES = """
import gc, time, types
from grader.prepare import Preparer
made = []
check = types.SimpleNamespace(preparations=(lambda: made.append([object()]),))
problem = types.SimpleNamespace(slug="p", checks=[check])
preparer = Preparer(lambda: [problem], lambda: True, poll_s=0.005)
before = gc.get_freeze_count()
preparer.start()
while not preparer.done:
    time.sleep(0.01)
print(before, gc.get_freeze_count(), gc.is_tracked(made[0]) and all(o is not made[0] for o in gc.get_objects()))
"""


def test_by_default_what_a_problem_s_preparation_made_is_frozen_out_of_the_collector_s_walks() -> None:
    """In a process of its own: freezing this one's heap would keep every test's garbage."""
    result = subprocess.run([sys.executable, "-c", SETTLES], capture_output=True, text=True, timeout=120,
                            cwd=REPO, check=True)
    before, after, frozen = result.stdout.split()
    assert int(after) > int(before) and frozen == "True"


def test_a_failing_step_is_logged_and_the_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    steps = Steps()

    def broken() -> None:
        raise ValueError("a contract this process cannot draw from")

    problems = [FakeProblem("broken", [FakeCheck((broken,))]), steps.problem("b", 1)]
    with caplog.at_level(logging.ERROR, logger="grader.prepare"):
        preparer = started(problems, lambda: True)
        eventually(lambda: preparer.done, "the preparer finished")
    assert steps.ran == ["b.0"] and preparer.prepared == 2
    assert "preparing broken failed" in caplog.text and "a contract this process cannot draw from" in caplog.text


def test_stopping_ends_a_preparer_that_waits_for_the_host() -> None:
    steps = Steps()
    preparer = started([steps.problem("a", 1)], lambda: False)
    preparer.stop(timeout_s=5)
    assert not any(thread.name == "paperlab-prepare" and thread.is_alive() for thread in threading.enumerate())
    assert steps.ran == []


def test_a_problem_without_steps_counts_as_prepared() -> None:
    preparer = started([FakeProblem("plain", [FakeCheck(())])], lambda: True)
    eventually(lambda: preparer.done, "the preparer finished")
    assert preparer.prepared == 1


# ---------------------------------------------------------------------------------------------- the reference


def reference_report(*, solved: bool = True, stopped: bool = False, failed: tuple[str, ...] = ()) -> Any:
    checks = [SimpleNamespace(id=check_id, required=True, status="failed") for check_id in failed]
    return SimpleNamespace(solved=solved, stopped=stopped, checks=checks, error=None)


def test_each_problem_s_reference_is_graded_after_its_steps() -> None:
    steps = Steps()

    def grade_reference(problem: Any, cancel: CancelToken) -> Any:
        steps.ran.append(f"{problem.slug}.reference")
        return reference_report()

    preparer = started([steps.problem("a", 2), steps.problem("b", 1)], lambda: True, grade_reference=grade_reference)
    eventually(lambda: preparer.done, "the preparer finished")
    assert steps.ran == ["a.0", "a.1", "a.reference", "b.0", "b.reference"]


def test_the_reference_is_not_graded_while_the_host_grades() -> None:
    steps, busy = Steps(), threading.Event()
    problem = steps.problem("a", 1, busy_after_first=busy)
    graded: list[str] = []

    def grade_reference(problem: Any, cancel: CancelToken) -> Any:
        graded.append(problem.slug)
        return reference_report()

    preparer = started([problem], lambda: not busy.is_set(), grade_reference=grade_reference)
    eventually(lambda: steps.ran == ["a.0"], "a's step ran")
    time.sleep(0.3)
    assert graded == []
    busy.clear()
    eventually(lambda: preparer.done, "the preparer finished")
    assert graded == ["a"]


def test_a_reference_that_fails_its_own_checks_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    failing = reference_report(solved=False, failed=("ema.formula", "loss.values"))
    with caplog.at_level(logging.WARNING, logger="grader.prepare"):
        preparer = started([FakeProblem("moco", [])], lambda: True, grade_reference=lambda problem, cancel: failing)
        eventually(lambda: preparer.done, "the preparer finished")
    assert "the reference solution of moco does not pass its own checks: ema.formula, loss.values" in caplog.text


def test_a_reference_that_passes_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="grader.prepare"):
        preparer = started([FakeProblem("moco", [])], lambda: True,
                           grade_reference=lambda problem, cancel: reference_report())
        eventually(lambda: preparer.done, "the preparer finished")
    assert caplog.records == []


def test_stopping_cancels_the_reference_grading_under_way(caplog: pytest.LogCaptureFixture) -> None:
    grading = threading.Event()

    def grade_reference(problem: Any, cancel: CancelToken) -> Any:
        grading.set()
        while not cancel.cancelled:  # as the judge does: the running call's child killed, the rest skipped
            time.sleep(0.005)
        return reference_report(solved=False, stopped=True)

    with caplog.at_level(logging.WARNING, logger="grader.prepare"):
        preparer = started([FakeProblem("slow", [])], lambda: True, grade_reference=grade_reference)
        assert grading.wait(WAIT_S)
        started_at = time.monotonic()
        preparer.stop(timeout_s=WAIT_S)
    assert time.monotonic() - started_at < 5
    assert not any(thread.name == "paperlab-prepare" and thread.is_alive() for thread in threading.enumerate())
    assert caplog.records == []  # a stopped grading says nothing about the reference


# ---------------------------------------------------------------------------------------------- a real problem


@pytest.fixture
def blend() -> Problem:
    return load_problem(BLEND)  # a fresh load: nothing of it drawn or built yet in this process


def search_batteries(problem: Problem) -> list[Any]:
    (search,) = [check for check in problem.checks if check.id == "contract.search"]
    return [step.args[0] for step in search.preparations]  # type: ignore[attr-defined]


def test_the_search_draws_its_examples_in_its_preparation(blend: Problem) -> None:
    batteries = search_batteries(blend)
    assert [battery.name for battery in batteries] == ["mix", "ring"]
    assert all("search" not in battery.cache for battery in batteries)
    for step in preparation_steps(blend):
        step()
    for battery in batteries:
        examples, cases = battery.cache["search"]
        assert len(examples) == len(cases) == battery.contract.search_examples
        assert drawn_examples(battery)[0] is examples  # the grading finds them: nothing drawn again


@pytest.mark.parametrize("check_id, built", [
    ("contract.mix.values", ["values_cases"]),
    ("contract.mix.edges", ["edge_cases"]),
    ("contract.mix.autograd", ["autograd_cases", "no_grad_case"]),
    ("contract.mix.refusals", ["refusal_cases"]),
])
def test_a_battery_check_builds_its_cases_in_its_preparation(blend: Problem, check_id: str,
                                                              built: list[str]) -> None:
    (check,) = [check for check in blend.checks if check.id == check_id]
    battery = check.function.__self__  # type: ignore[attr-defined]
    assert not set(built) & set(vars(battery))
    for step in check.preparations:
        step()
    assert set(built) <= set(vars(battery))


# The search finds this one: it is wrong only where |x| > 3.5, which a few of the drawn inputs reach.
WRONG_FAR_OUT = "def mix(x, y, weight=0.5):\n    return (1 - weight) * x + weight * y + (x.abs() > 3.5) * 0.01\n"


def verdicts(report: Report) -> list[tuple[str, str, str]]:
    return [(check.id, check.status, check.message) for check in report.checks]


def test_a_grading_after_preparing_on_another_thread_gives_the_verdicts_of_one_without(blend: Problem) -> None:
    code = blend.reference_source() + "\n\n" + WRONG_FAR_OUT
    prepared = load_problem(BLEND)
    preparer = started([prepared], lambda: True)
    eventually(lambda: preparer.done, "blend prepared")
    after = grade(prepared, code, pool=InProcessPool())  # type: ignore[arg-type]
    without = grade(blend, code, pool=InProcessPool())  # type: ignore[arg-type]
    assert ("contract.search", "failed") in [(check_id, status) for check_id, status, _ in verdicts(after)]
    assert verdicts(after) == verdicts(without)


def test_a_reference_graded_ahead_leaves_the_judge_every_answer_a_correct_grading_asks_for(tmp_path: Path) -> None:
    folder = tmp_path / "blend"
    shutil.copytree(BLEND, folder)
    with (folder / "reference.py").open("a") as reference:  # files of its own: no answers of it in this process yet
        reference.write("\n# copied for one test\n")
    problem = load_problem(folder)
    answers = answers_for(problem)
    assert len(answers) == 0
    pool = InProcessPool()

    def grade_reference(problem: Problem, cancel: CancelToken) -> Report:
        return grade(problem, problem.reference_source(), pool=pool, cancel=cancel)  # type: ignore[arg-type]

    preparer = started([problem], lambda: True, grade_reference=grade_reference)
    eventually(lambda: preparer.done, "blend prepared")
    kept = len(answers)
    assert kept > 0
    first = grade(problem, problem.reference_source(), pool=pool)  # type: ignore[arg-type]
    assert first.solved
    assert len(answers) == kept  # nothing left to compute
