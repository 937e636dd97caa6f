"""The child's clock for a call's time limit (grader.sandboxed.learner_thread.LearnerThread): the call's wall time less
the time the learner's thread waited for a CPU other processes held, so a busy machine changes no verdict;
sleeping counts; and whatever the kernel says, a call ends at `wall_ceiling_factor` times its limit of wall time."""

from __future__ import annotations

import time
import types
from pathlib import Path

import pytest

from grader import protocol
from grader.sandboxed import serving
from grader.sandboxed.learner_thread import CallOverran, LearnerThread, Output, learner_namespace


@pytest.fixture
def learner() -> LearnerThread:
    return LearnerThread(learner_namespace())


def test_the_learner_thread_reads_its_own_wait_for_a_cpu(learner: LearnerThread) -> None:
    if not Path("/proc/self/schedstat").exists():
        pytest.skip("this kernel keeps no scheduler statistics")  # the clock is the wall clock there
    assert learner._schedstat >= 0
    first = learner.queued_s()
    assert first >= 0.0 and learner.queued_s() >= first


def test_without_a_limit_a_call_may_take_as_long_as_it_takes(learner: LearnerThread) -> None:
    assert learner.run(time.sleep, (0.05,), {}) == (True, None)


def test_a_call_that_sleeps_past_its_limit_is_cut(learner: LearnerThread) -> None:
    learner.call_timeout_s, learner.wall_ceiling_factor = 0.1, 20.0  # the ceiling (2 s) is past the sleep
    with pytest.raises(CallOverran):
        learner.run(time.sleep, (1.0,), {})


def test_time_spent_waiting_for_a_cpu_is_not_counted(learner: LearnerThread,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    learner.call_timeout_s, learner.wall_ceiling_factor = 0.1, 100.0
    monkeypatch.setattr(learner, "queued_s", lambda: time.monotonic() * 0.95)  # a machine loaded 20x
    assert learner.run(time.sleep, (0.3,), {}) == (True, None)  # 0.015 s of its own time


def test_a_call_ends_at_its_wall_clock_ceiling_whatever_it_waited(learner: LearnerThread,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    learner.call_timeout_s, learner.wall_ceiling_factor = 0.1, 3.0
    monkeypatch.setattr(learner, "queued_s", lambda: time.monotonic())  # as if it never got a CPU
    with pytest.raises(CallOverran):  # its own time never reaches the limit: the ceiling (0.3 s) ends it
        learner.run(time.sleep, (2.0,), {})


def test_a_calls_duration_leaves_out_its_wait_for_a_cpu(learner: LearnerThread,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.sandboxed import learner_thread

    learner.call_timeout_s, learner.wall_ceiling_factor = 10.0, 3.0
    waited = iter([1.0, 1.25])  # before and after the call: it waited 0.25 s for a CPU
    clock = iter([10.0, 10.3])  # and took 0.3 s of wall time
    monkeypatch.setattr(learner, "queued_s", lambda: next(waited))
    monkeypatch.setattr(learner_thread, "_monotonic", lambda: next(clock))
    assert learner.run(lambda: None, (), {}) == (True, None)
    assert learner.last_call_s() == pytest.approx(0.05)


def test_a_calls_duration_counts_from_the_clocks_run_read_before_it(learner: LearnerThread) -> None:
    learner.call_timeout_s = 10.0
    learner.run(time.sleep, (0.05,), {})
    first = learner.last_call_s()
    time.sleep(0.05)
    assert 0.04 <= first <= learner.last_call_s()  # the clock runs on from the call's start until it is read


def test_served_reports_the_duration_its_runner_measured() -> None:
    import torch

    served = serving.Served(types.ModuleType("m"), Output(learner_namespace(), 100),
                            lambda function, args, kwargs: (True, function(*args)), [], None,
                            arena_copies=True, elapsed=lambda: 0.05)
    served.module.f = lambda x: x  # type: ignore[attr-defined]
    arguments, blobs = protocol.encode(((torch.zeros(1),), {}))
    call = {"function": "f", "arguments": arguments, "grads": [], "grad_output": None, "module": "",
            "uses": [], "keep": False}
    reply = served.call(call, [bytearray(blob) for blob in blobs], [])
    assert reply["duration_ms"] == pytest.approx(50.0)
