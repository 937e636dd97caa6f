"""The judge's clock for a request (grader.child.Child): its deadline is pushed back by the time the child's
threads waited for a CPU since the request was sent (their schedstat, read from outside the sandbox), never past
the wall-clock ceiling of `wall_ceiling_factor` times the wait."""

from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import dataclass

import pytest

from grader.child import Child
from grader.limits import Limits


@dataclass
class NoControl:
    control: None = None


def child_on(sock: socket.socket, *, factor: float = 8.0, pid: int | None = None) -> Child:
    return Child(template=NoControl(), sock=sock, host_pid=os.getpid() if pid is None else pid,  # type: ignore[arg-type]
                 cgroup=None, limits=Limits(wall_ceiling_factor=factor))


def test_the_child_wait_for_a_cpu_is_read_from_its_threads(pair: tuple[socket.socket, socket.socket]) -> None:
    if not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/schedstat"):
        pytest.skip("this kernel keeps no scheduler statistics")  # then every wait is the wall clock's
    child = child_on(pair[0])
    first = child.queued_s()
    assert first > 0.0 and child.queued_s() >= first


def test_a_child_that_is_gone_waited_for_nothing(pair: tuple[socket.socket, socket.socket]) -> None:
    assert child_on(pair[0], pid=2**22 + 1).queued_s() == 0.0


def test_without_waiting_for_a_cpu_the_deadline_holds(pair: tuple[socket.socket, socket.socket],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    child = child_on(pair[0])
    monkeypatch.setattr(child, "queued_s", lambda: 3.0)
    deadline = time.monotonic() + 0.05
    child._start_clock(deadline)
    with pytest.raises(TimeoutError):
        child._wait_for_reply(deadline)


def test_a_wait_for_a_cpu_pushes_the_deadline_back(pair: tuple[socket.socket, socket.socket],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    child = child_on(pair[0], factor=100.0)
    waited = iter([1.0, 3.0])  # when sent, then when the deadline passed: it waited 2 s for a CPU meanwhile
    monkeypatch.setattr(child, "queued_s", lambda: next(waited))
    deadline = time.monotonic() + 0.05
    child._start_clock(deadline)
    threading.Timer(0.2, pair[1].sendall, (b"x",)).start()  # the reply comes after the first deadline
    assert child._wait_for_reply(deadline) == pytest.approx(deadline + 2.0)


def test_the_deadline_is_never_pushed_past_the_ceiling(pair: tuple[socket.socket, socket.socket],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    child = child_on(pair[0], factor=2.0)
    monkeypatch.setattr(child, "queued_s", time.monotonic)  # as if it never got a CPU
    deadline = time.monotonic() + 0.05
    child._start_clock(deadline)
    with pytest.raises(TimeoutError):  # at about twice the wait, however long it waited
        child._wait_for_reply(deadline)
    assert child._ceiling == pytest.approx(deadline + 0.05, abs=0.01)


def test_a_thread_started_after_the_first_read_is_counted_too(pair: tuple[socket.socket, socket.socket]) -> None:
    if not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/schedstat"):
        pytest.skip("this kernel keeps no scheduler statistics")
    child = child_on(pair[0])
    child.queued_s()
    before = len(child._schedstats or ())
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        child.queued_s()
        assert len(child._schedstats or ()) == before + 1
    finally:
        release.set()
        thread.join()
        for fd in child._schedstats or ():
            os.close(fd)


def test_ending_the_child_closes_its_schedstat_files(pair: tuple[socket.socket, socket.socket],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    child = child_on(pair[0])
    child.queued_s()
    opened = list(child._schedstats or ())
    monkeypatch.setattr(child, "template", type("Reaper", (), {"reap": lambda self, c: None, "control": None})())
    child.end()
    assert child._schedstats is None
    for fd in opened:
        with pytest.raises(OSError):
            os.fstat(fd)
