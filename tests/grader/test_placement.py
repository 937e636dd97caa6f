"""grader.placement: one grading child per CPU pinned, counted across every judge process of the machine."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grader.placement import CpuPlacement, Slot, current_cpu, pin, preference

REPO = Path(__file__).resolve().parents[2]
TWO_CPUS = (0, 1)
Keep = Callable[[Slot | None], Slot | None]


@pytest.fixture
def namespace() -> str:
    """A namespace of slots of this test's own (the default one is the machine's, shared with running pools)."""
    return f"paperlab-test-{uuid.uuid4().hex}"


@pytest.fixture
def keep() -> Iterator[Keep]:
    """keep(slot) -> slot, released when the test ends."""
    kept: list[Slot] = []

    def hold(slot: Slot | None) -> Slot | None:
        if slot is not None:
            kept.append(slot)
        return slot

    yield hold
    for slot in kept:
        slot.release()


def test_each_child_gets_a_cpu_of_its_own_until_none_is_left(namespace: str, keep: Keep) -> None:
    placement = CpuPlacement(namespace, TWO_CPUS)
    first, second = keep(placement.take()), keep(placement.take())
    assert first is not None and second is not None
    assert {first.cpu, second.cpu} == set(TWO_CPUS)
    assert keep(placement.take()) is None  # a third child runs where the kernel puts it


def test_a_released_cpu_is_given_again(namespace: str, keep: Keep) -> None:
    placement = CpuPlacement(namespace, TWO_CPUS)
    first, second = keep(placement.take()), keep(placement.take())
    assert first is not None and second is not None
    first.release()
    again = keep(placement.take())
    assert again is not None and again.cpu == first.cpu


def test_release_may_be_repeated(namespace: str, keep: Keep) -> None:
    placement = CpuPlacement(namespace, TWO_CPUS)
    slot = keep(placement.take())
    assert slot is not None
    slot.release()
    slot.release()
    assert slot.holder is None


def test_the_count_is_shared_by_the_judges_of_one_machine(namespace: str, keep: Keep) -> None:
    """Two pools (a Celery worker's processes each have one) see each other's children."""
    mine, theirs = CpuPlacement(namespace, TWO_CPUS), CpuPlacement(namespace, TWO_CPUS)
    held = [keep(mine.take()), keep(theirs.take())]
    assert all(slot is not None for slot in held)
    assert {slot.cpu for slot in held if slot is not None} == set(TWO_CPUS)
    assert keep(mine.take()) is None and keep(theirs.take()) is None


def test_a_judge_that_dies_frees_its_cpus(namespace: str, keep: Keep) -> None:
    script = textwrap.dedent(f"""
        import sys, time
        from grader.placement import CpuPlacement
        slots = [CpuPlacement({namespace!r}, (0, 1)).take() for _ in range(2)]
        print(sorted(slot.cpu for slot in slots), flush=True)
        time.sleep(60)
    """)
    with subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True) as judge:
        try:
            assert judge.stdout is not None and judge.stdout.readline().strip() == "[0, 1]"
            assert keep(CpuPlacement(namespace, TWO_CPUS).take()) is None
        finally:
            judge.kill()
    assert keep(CpuPlacement(namespace, TWO_CPUS).take()) is not None


@pytest.mark.parametrize(("cpus", "judge_cpu", "expected"), [
    ((0, 1), 0, [1, 0]),
    ((0, 1), 1, [0, 1]),
    ((0, 1, 2, 3), 2, [0, 1, 3, 2]),
    ((0, 1), None, [0, 1]),
    ((4, 5), 0, [4, 5]),
], ids=["judge on 0", "judge on 1", "four CPUs", "judge's CPU unknown", "judge outside the set"])
def test_the_judges_own_cpu_is_offered_last(cpus: tuple[int, ...], judge_cpu: int | None,
                                            expected: list[int]) -> None:
    """The judge works while its child computes: a child on another CPU overlaps it instead of queueing behind."""
    assert preference(cpus, judge_cpu) == expected


def test_the_current_cpu_is_one_this_process_may_use() -> None:
    assert current_cpu() in os.sched_getaffinity(0)


@pytest.mark.parametrize("cpus", [(0,), ()], ids=["one CPU", "none"])
def test_nothing_is_pinned_without_a_choice(namespace: str, keep: Keep, cpus: tuple[int, ...]) -> None:
    assert keep(CpuPlacement(namespace, cpus).take()) is None


def test_the_defaults_are_every_cpu_this_process_may_use_and_one_namespace_per_user() -> None:
    placement = CpuPlacement()
    assert placement.cpus == tuple(sorted(os.sched_getaffinity(0)))
    assert placement.namespace == f"paperlab-cpu-{os.getuid()}"


def test_pin_binds_every_thread_of_a_process() -> None:
    cpu = min(os.sched_getaffinity(0))
    script = "import threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\nprint(1, flush=True)\n"
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None and process.stdout.readline().strip() == "1"
            assert pin(process.pid, cpu)
            tasks = os.listdir(f"/proc/{process.pid}/task")
            assert len(tasks) == 2
            assert all(os.sched_getaffinity(int(task)) == {cpu} for task in tasks)
        finally:
            process.kill()


def test_pin_of_a_process_that_is_gone_says_so() -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    assert not pin(process.pid, 0)


@pytest.mark.sandbox
def test_a_sandboxed_child_runs_on_its_cpu_until_it_ends(need_sandbox: None, namespace: str, adder_correct: str,
                                                          keep: Keep) -> None:
    from grader.limits import Limits
    from grader.pool import WorkerPool

    cpus = tuple(sorted(os.sched_getaffinity(0)))
    if len(cpus) < 2:
        pytest.skip("placement needs two CPUs")
    pool = WorkerPool(size=1, placement=CpuPlacement(namespace, cpus)).start()
    try:
        with pool.session(adder_correct, Limits()) as session:
            assert session.load().ok
            child = session.child
            assert child is not None and child.slot is not None
            tasks = os.listdir(f"/proc/{child.host_pid}/task")
            assert len(tasks) >= 2  # the learner's thread too, started after the pin
            assert all(os.sched_getaffinity(int(task)) == {child.slot.cpu} for task in tasks)
            child.end()
            assert child.slot is None
        assert {slot.cpu for slot in (keep(CpuPlacement(namespace, cpus).take()) for _ in cpus) if slot} == set(cpus)
    finally:
        pool.close()
