"""A reply read and a request sent between its reading and its opening (grader.child.Child.receive's `then`): the
judge sends its next request the moment a reply is in and its arena compared, and only then verifies and parses
the reply. Nothing about the reply changes: its arena is compared first, and its own failure wins over one of
sending the next request."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field

import pytest

from grader import protocol
from grader.calls import WorkerLost
from grader.child import Child, ExitInfo
from grader.interleave import Answer
from grader.limits import Limits
from grader.messages import CallsReply, CallsRequest, RequestedCall

KEY = bytes(range(32))


@dataclass
class Reaper:
    control: None = None
    reaped: list[Child] = field(default_factory=list)

    def reap(self, child: Child) -> ExitInfo:
        self.reaped.append(child)
        return ExitInfo(exit_code=0)


def child_on(sock: socket.socket, factor: float = 8.0) -> Child:
    return Child(template=Reaper(), sock=sock, host_pid=os.getpid(), cgroup=None,  # type: ignore[arg-type]
                 limits=Limits(wall_ceiling_factor=factor), key=KEY)



REPLY = {"op": "results", "results": [{"value": 1.5, "raised": None, "missing": False, "grads": {},
                                      "backward_error": None, "grad_output": None, "mutated": [], "aliased": [],
                                      "shares": [], "output": "", "duration_ms": 1.0}]}


def send_reply(theirs: socket.socket, *, key: bytes = KEY) -> None:
    protocol.send_frame(theirs, REPLY, key=key)


def an_arena() -> protocol.Arena:
    return protocol.Arena.create([b"\x01\x02\x03\x04"])


def receive(child: Child, arena: protocol.Arena, then: object) -> Answer:
    deadline = time.monotonic() + 5.0
    return child.receive(arena, deadline=deadline, timeout=5.0, what="f()", then=then)  # type: ignore[arg-type]


def test_the_next_request_goes_out_after_the_arena_is_compared_and_before_the_reply_is_opened(
        pair: tuple[socket.socket, socket.socket]) -> None:
    child, arena = child_on(pair[0]), an_arena()
    seen: list[bool] = []
    send_reply(pair[1])
    answer = receive(child, arena, then=lambda: seen.append(arena.memory is None))
    assert seen == [True]  # compared and unmapped already
    assert isinstance(answer.message, CallsReply) and answer.written == (False,)


def test_a_write_into_the_arena_before_the_reply_is_seen(pair: tuple[socket.socket, socket.socket]) -> None:
    child, arena = child_on(pair[0]), an_arena()
    assert arena.memory is not None
    arena.memory[0:1] = b"\xff"  # what the worker's function did to its argument
    send_reply(pair[1])
    assert receive(child, arena, then=lambda: None).written == (True,)


def test_a_failure_to_send_the_next_request_comes_after_a_good_reply(
        pair: tuple[socket.socket, socket.socket]) -> None:
    child = child_on(pair[0])
    send_reply(pair[1])

    def next_fails() -> None:
        raise WorkerLost("the next request could not be sent", limit="crash")

    with pytest.raises(WorkerLost, match="the next request could not be sent"):
        receive(child, an_arena(), then=next_fails)


def test_a_replys_own_failure_wins_over_one_of_sending_the_next_request(
        pair: tuple[socket.socket, socket.socket]) -> None:
    child = child_on(pair[0])
    send_reply(pair[1], key=b"\x00" * 32)  # not the child's key: written by the learner's code on the channel

    def next_fails() -> None:
        raise WorkerLost("the next request could not be sent", limit="crash")

    with pytest.raises(WorkerLost) as lost:
        receive(child, an_arena(), then=next_fails)
    assert lost.value.limit == "tampering"
    assert "a malformed message the worker did not sign" in str(lost.value)


def test_a_settled_deadline_moves_the_wall_clock_ceiling_with_it(pair: tuple[socket.socket, socket.socket]) -> None:
    child = child_on(pair[0], factor=3.0)
    child.settle_deadline(100.0, 102.0)
    assert child._ceiling == pytest.approx(106.0)  # noqa: SLF001 - the ceiling has no public view


def test_a_request_made_ready_ahead_sends_nothing_until_transmitted(
        pair: tuple[socket.socket, socket.socket]) -> None:
    request = CallsRequest((RequestedCall(function="f", arguments={"tuple": [{"tuple": []}, {"dict": []}]},
                                          grads=(), grad_output=None),))
    outgoing = Child.prepare(request, [b"\x01\x02"])
    pair[1].setblocking(False)
    with pytest.raises(BlockingIOError):
        pair[1].recv(1)
    child_on(pair[0]).transmit(outgoing, deadline=time.monotonic() + 5.0, timeout=5.0, what="f()")
    header, _, fds = protocol.recv_frame(pair[1], max_blob_bytes=0, with_fds=True)  # type: ignore[misc]
    assert header["op"] == "calls" and header["arena"]["size"] == 2 and len(fds) == 1
    for fd in fds:
        os.close(fd)
    outgoing.arena.close()
