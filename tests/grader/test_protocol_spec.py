"""Specification of grader.protocol beyond the round trips of test_protocol.py: signed frames, descriptors
passed with a frame, the one deadline of a frame, the exact boundary of every cap, the exact error of every
refusal, and the arena the judge shares with the worker. Everything runs over socketpairs and memfds in this
process."""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import re
import socket
import threading
import time
from typing import Any

import pytest
import torch

from grader.protocol import (
    COALESCE_BYTES,
    FRAME,
    MAC_BYTES,
    MAX_DEPTH,
    MAX_DIMS,
    MAX_HEADER_BYTES,
    MAX_ITEMS,
    MAX_STRING,
    Arena,
    Decoder,
    Encoder,
    MessageTooLarge,
    Opaque,
    ProtocolError,
    Unsigned,
    decode,
    dumps,
    encode,
    encoding,
    framing,
    loads,
    map_arena,
    recv_frame,
    send_frame,
    signature,
)

KEY = b"k" * 32


def open_fds() -> set[int]:
    return {int(name) for name in os.listdir("/proc/self/fd")}


def exactly(message: str) -> str:
    return f"^{re.escape(message)}$"


# ------------------------------------------------------------------------------------------ JSON headers


def test_a_header_is_compact_utf8_json() -> None:
    assert dumps({"a": [1, "é"], "b": None}) == '{"a":[1,"é"],"b":null}'.encode()


def test_a_header_the_standard_library_writes_is_compact_ascii_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "_orjson_dumps", None)  # as in the sandbox, which mounts no orjson
    assert dumps({"a": [1, "é"], "b": None}) == b'{"a":[1,"\\u00e9"],"b":null}'


@pytest.mark.parametrize(("data", "message"), [
    pytest.param(b"", "malformed header: not JSON", id="empty"),
    pytest.param(b"nope", "malformed header: not JSON", id="not-json"),
    pytest.param(b"{} {}", "malformed header: extra data after the JSON value", id="two-values"),
    pytest.param(b"\xff", "malformed header: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
                 id="bad-utf8"),
])
def test_a_malformed_header_says_why(data: bytes, message: str) -> None:
    with pytest.raises(ProtocolError, match=exactly(message)):
        loads(data)


def test_a_header_may_end_in_whitespace() -> None:
    assert loads(b'{"a": 1}\n ') == {"a": 1}


# -------------------------------------------------------------------------------------------- signatures


def test_a_signature_is_the_hmac_sha256_of_header_and_blobs_in_order() -> None:
    expected = hmac.new(KEY, b"head" + b"one" + b"two", hashlib.sha256).digest()
    assert signature(KEY, b"head", [b"one", b"two"]) == expected
    assert signature(KEY, bytearray(b"head"), [bytearray(b"onetwo")]) == expected


@pytest.mark.parametrize("blob_bytes", [0, 10, COALESCE_BYTES + 1], ids=["no-blobs", "small", "large"])
def test_a_signed_frame_verifies_with_its_key(pair: tuple[socket.socket, socket.socket], blob_bytes: int) -> None:
    left, right = pair
    blobs = [b"a" * blob_bytes, b"b" * 3] if blob_bytes else []
    sender = threading.Thread(target=send_frame, args=(left, {"op": "x"}, blobs), kwargs={"key": KEY})
    sender.start()
    frame = recv_frame(right, max_blob_bytes=1 << 20, key=KEY)
    assert len(frame) == 2  # without with_fds
    header, received = frame
    sender.join()
    assert header == {"op": "x"} and [bytes(blob) for blob in received] == blobs


def test_a_signed_frame_starts_with_the_prefix_then_the_mac_of_what_follows(
        pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    send_frame(left, {"op": "x"}, [b"abc"], key=KEY)
    left.close()
    data = b""
    while chunk := right.recv(1 << 16):
        data += chunk
    header = b'{"op":"x","_blobs":[[0,3]]}'
    assert data == FRAME.pack(len(header), 3) + signature(KEY, header, [b"abc"]) + header + b"abc"


@pytest.mark.parametrize("key", [b"x" * 32, None], ids=["another-key", "unsigned"])
def test_a_frame_not_signed_with_the_key_is_refused(pair: tuple[socket.socket, socket.socket],
                                                     key: bytes | None) -> None:
    left, right = pair
    send_frame(left, {"op": "x"}, [b"z"], key=key)
    left.sendall(b" " * MAC_BYTES)  # an unsigned frame is MAC_BYTES short: bytes after it stand in for them
    with pytest.raises(Unsigned, match=exactly("a message on the worker's channel was not written by the worker")):
        recv_frame(right, max_blob_bytes=1 << 20, key=KEY)


def test_a_signed_frame_with_one_byte_changed_is_refused(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    header = b'{"_blobs":[[0,2]]}'
    mac = signature(KEY, header, [b"ok"])
    left.sendall(FRAME.pack(len(header), 2) + mac + header + b"oK")
    with pytest.raises(Unsigned):
        recv_frame(right, max_blob_bytes=1 << 20, key=KEY)


# ----------------------------------------------------------------------------------------------- framing


@pytest.mark.parametrize("sizes", [[COALESCE_BYTES], [COALESCE_BYTES, 1], [5, 0, COALESCE_BYTES * 2, 7]],
                         ids=["coalesced", "just-over", "several-large"])
def test_blobs_of_any_size_arrive_whole_and_in_order(pair: tuple[socket.socket, socket.socket],
                                                     sizes: list[int]) -> None:
    left, right = pair
    blobs = [bytes([index + 1]) * size for index, size in enumerate(sizes)]
    sender = threading.Thread(target=send_frame, args=(left, {"n": len(blobs)}, blobs))
    sender.start()
    frame = recv_frame(right, max_blob_bytes=sum(sizes))
    assert len(frame) == 2  # without with_fds
    header, received = frame
    sender.join()
    assert header == {"n": len(blobs)}
    assert [bytes(blob) for blob in received] == blobs


@pytest.mark.parametrize(("sizes", "sends"), [([], 1), ([COALESCE_BYTES], 1), ([COALESCE_BYTES - 1, 1], 1),
                                               ([COALESCE_BYTES + 1], 2), ([COALESCE_BYTES, 0, 1], 3)],
                         ids=["no-blobs", "exactly-the-threshold", "two-blobs-at-the-threshold", "one-byte-over",
                              "over-with-an-empty-blob"])
def test_a_frame_whose_blobs_total_at_most_the_threshold_is_one_send(
        pair: tuple[socket.socket, socket.socket], monkeypatch: pytest.MonkeyPatch, sizes: list[int],
        sends: int) -> None:
    left, right = pair
    calls: list[int] = []
    sendall = framing._sendall

    def counted(sock: socket.socket, data: bytes) -> None:
        calls.append(len(data))
        sendall(sock, data)

    monkeypatch.setattr(framing, "_sendall", counted)
    blobs = [bytes([n % 251]) * size for n, size in enumerate(sizes)]
    sender = threading.Thread(target=send_frame, args=(left, {"op": "x"}, blobs))
    sender.start()
    frame = recv_frame(right, max_blob_bytes=sum(sizes) + 1)
    sender.join()
    assert [bytes(blob) for blob in frame[1]] == blobs
    assert len(calls) == sends  # over the threshold: the prefix and header, then each non-empty blob


def test_a_header_of_exactly_the_cap_is_read(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    header = b"{}".ljust(MAX_HEADER_BYTES)
    sender = threading.Thread(target=left.sendall, args=(FRAME.pack(len(header), 0) + header,))
    sender.start()
    assert recv_frame(right, max_blob_bytes=0) == ({}, [])
    sender.join()


def test_a_blob_of_exactly_the_cap_is_read(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    send_frame(left, {}, [b"abcd"])
    assert [bytes(blob) for blob in recv_frame(right, max_blob_bytes=4)[1]] == [b"abcd"]


@pytest.mark.parametrize(("header", "message"), [
    pytest.param(b"[1]", "header must be a JSON object", id="a-list"),
    pytest.param(b'{"_blobs": {}}', "malformed blob table", id="table-not-a-list"),
    pytest.param(b'{"_blobs": [[0]]}', "malformed blob table", id="short-entry"),
    pytest.param(b'{"_blobs": [[0, 1.0]]}', "malformed blob table", id="float-length"),
    pytest.param(b'{"_blobs": [[-1, 1]]}', "blob out of range", id="negative-start"),
    pytest.param(b'{"_blobs": [[1, -1]]}', "blob out of range", id="negative-length"),
    pytest.param(b'{"_blobs": [[2, 2]]}', "blob out of range", id="past-the-end"),
])
def test_a_malformed_frame_says_why(pair: tuple[socket.socket, socket.socket], header: bytes, message: str) -> None:
    left, right = pair
    left.sendall(FRAME.pack(len(header), 3) + header + b"abc")
    with pytest.raises(ProtocolError, match=exactly(message)):
        recv_frame(right, max_blob_bytes=3)


def test_a_blob_table_may_name_empty_and_overlapping_blobs(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    header = b'{"_blobs": [[0, 0], [1, 2], [0, 3], [3, 0]]}'
    left.sendall(FRAME.pack(len(header), 3) + header + b"abc")
    assert [bytes(blob) for blob in recv_frame(right, max_blob_bytes=3)[1]] == [b"", b"bc", b"abc", b""]


def test_a_frame_without_a_blob_table_has_no_blobs(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    left.sendall(FRAME.pack(2, 3) + b"{}abc")
    assert recv_frame(right, max_blob_bytes=3) == ({}, [])


@pytest.mark.parametrize("sent", [b"", FRAME.pack(10, 0)[:5], FRAME.pack(10, 0) + b"{}"],
                         ids=["nothing", "half-a-prefix", "half-a-header"])
@pytest.mark.parametrize("with_fds", [False, True], ids=["plain", "with-fds"])
def test_a_peer_that_closes_mid_frame_is_end_of_file(pair: tuple[socket.socket, socket.socket], sent: bytes,
                                                      with_fds: bool) -> None:
    left, right = pair
    left.sendall(sent)
    left.close()
    with pytest.raises(EOFError, match=exactly("peer closed the connection")):
        recv_frame(right, max_blob_bytes=0, with_fds=with_fds)


# ------------------------------------------------------------------------------------------------ deadlines


def test_a_frame_whose_deadline_has_passed_is_not_read(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    send_frame(left, {"op": "late"})
    with pytest.raises(TimeoutError, match=exactly("the frame did not arrive in time")):
        recv_frame(right, max_blob_bytes=0, deadline=time.monotonic() - 0.001)


def test_a_frame_whose_deadline_is_now_is_not_read(pair: tuple[socket.socket, socket.socket],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    left, right = pair
    send_frame(left, {"op": "on-time?"})
    now = time.monotonic()
    monkeypatch.setattr(framing, "_monotonic", lambda: now)  # the clock reads the deadline itself
    with pytest.raises(TimeoutError, match=exactly("the frame did not arrive in time")):
        recv_frame(right, max_blob_bytes=0, deadline=now)


@pytest.mark.parametrize("with_fds", [False, True], ids=["plain", "with-fds"])
def test_a_frame_that_arrives_before_its_deadline_is_read(pair: tuple[socket.socket, socket.socket],
                                                          with_fds: bool) -> None:
    left, right = pair
    send_frame(left, {"op": "x"}, [b"abc"], key=KEY)
    received = recv_frame(right, max_blob_bytes=3, key=KEY, deadline=time.monotonic() + 0.5, with_fds=with_fds)
    assert received[0] == {"op": "x"} and [bytes(blob) for blob in received[1]] == [b"abc"]


@pytest.mark.parametrize("sent", [b"", FRAME.pack(10, 0)[:5], FRAME.pack(10, 4) + b"{}", FRAME.pack(2, 4) + b"{}a"],
                         ids=["nothing", "half-a-prefix", "half-a-header", "half-the-blobs"])
@pytest.mark.parametrize("with_fds", [False, True], ids=["plain", "with-fds"])
def test_one_deadline_holds_for_the_whole_frame(pair: tuple[socket.socket, socket.socket], sent: bytes,
                                                with_fds: bool) -> None:
    left, right = pair
    right.settimeout(None)  # only the deadline may end the wait
    left.sendall(sent)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        recv_frame(right, max_blob_bytes=4, deadline=started + 0.2, with_fds=with_fds)
    assert 0.15 < time.monotonic() - started < 3


@pytest.mark.parametrize("start", [FRAME.pack(100, 0), FRAME.pack(2, 100) + b"{}"], ids=["header", "blobs"])
def test_a_trickling_peer_still_runs_out_of_time(pair: tuple[socket.socket, socket.socket], start: bytes) -> None:
    left, right = pair
    right.settimeout(None)
    stop = threading.Event()

    def trickle() -> None:
        left.sendall(start)
        while not stop.wait(0.02):
            left.sendall(b" ")

    sender = threading.Thread(target=trickle)
    sender.start()
    started = time.monotonic()
    try:
        with pytest.raises(TimeoutError):
            recv_frame(right, max_blob_bytes=100, deadline=started + 0.3)
    finally:
        stop.set()
        sender.join()
    assert time.monotonic() - started < 2


# --------------------------------------------------------------------------------- descriptors with a frame


def memfd(content: bytes) -> int:
    fd = os.memfd_create("test")
    os.write(fd, content)
    return fd


def read_fd(fd: int) -> bytes:
    return os.pread(fd, 100, 0)


@pytest.mark.parametrize("count", [1, 2], ids=["one", "two"])
def test_descriptors_sent_with_a_frame_come_with_it(pair: tuple[socket.socket, socket.socket], count: int) -> None:
    left, right = pair
    sent = [memfd(b"file %d" % index) for index in range(count)]
    try:
        send_frame(left, {"op": "calls"}, [b"xyz"], fds=tuple(sent))
        frame = recv_frame(right, max_blob_bytes=3, with_fds=True)
        assert len(frame) == 3  # with_fds
        header, blobs, fds = frame
        assert header == {"op": "calls"} and [bytes(blob) for blob in blobs] == [b"xyz"]
        assert [read_fd(fd) for fd in fds] == [b"file %d" % index for index in range(count)]
        assert not set(fds) & set(sent)
        for fd in fds:
            os.close(fd)
    finally:
        for fd in sent:
            os.close(fd)


def test_a_frame_brings_at_most_four_descriptors(pair: tuple[socket.socket, socket.socket]) -> None:
    """The worker gets one (its arena); room for four, and the kernel drops the rest rather than the frame."""
    left, right = pair
    sent = [memfd(b"%d" % index) for index in range(5)]
    send_frame(left, {"op": "x"}, fds=tuple(sent))
    frame = recv_frame(right, max_blob_bytes=0, with_fds=True)
    assert len(frame) == 3  # with_fds
    header, _, fds = frame
    assert header == {"op": "x"} and [read_fd(fd) for fd in fds] == [b"0", b"1", b"2", b"3"]
    for fd in sent + fds:
        os.close(fd)


def test_credentials_that_come_with_a_frame_are_not_taken_for_descriptors(
        pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    right.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)  # every message then carries the sender's pid
    send_frame(left, {"op": "x"})
    assert recv_frame(right, max_blob_bytes=0, with_fds=True) == ({"op": "x"}, [], [])


def test_a_frame_with_a_descriptor_arrives_whole_however_the_socket_sends_it(
        pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    left.settimeout(5)  # a socket with a timeout may send part of a message and return
    left.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    sent = memfd(b"arena")
    blob = bytes(range(256)) * (COALESCE_BYTES // 256)
    sender = threading.Thread(target=send_frame, args=(left, {"op": "calls"}, [blob]), kwargs={"fds": (sent,)})
    sender.start()
    frame = recv_frame(right, max_blob_bytes=len(blob), with_fds=True, deadline=time.monotonic() + 3)
    assert len(frame) == 3  # with_fds
    header, blobs, fds = frame
    sender.join()
    os.close(sent)
    assert header == {"op": "calls"} and bytes(blobs[0]) == blob
    assert [read_fd(fd) for fd in fds] == [b"arena"]
    os.close(fds[0])


def test_a_large_frame_with_a_descriptor_arrives_whole(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    sent = memfd(b"big")
    blob = bytes(range(256)) * (COALESCE_BYTES // 256 + 8)
    sender = threading.Thread(target=send_frame, args=(left, {"op": "big"}, [blob]), kwargs={"fds": (sent,)})
    sender.start()
    frame = recv_frame(right, max_blob_bytes=len(blob), with_fds=True)
    assert len(frame) == 3  # with_fds
    header, blobs, fds = frame
    sender.join()
    os.close(sent)
    assert header == {"op": "big"} and bytes(blobs[0]) == blob
    assert [read_fd(fd) for fd in fds] == [b"big"]
    os.close(fds[0])


def test_a_frame_without_descriptors_has_none(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    send_frame(left, {"op": "x"})
    assert recv_frame(right, max_blob_bytes=0, with_fds=True) == ({"op": "x"}, [], [])


def test_descriptors_of_a_refused_frame_are_closed(pair: tuple[socket.socket, socket.socket]) -> None:
    left, right = pair
    sent = memfd(b"x")
    send_frame(left, {"op": "x"}, fds=(sent,))  # unsigned: refused by a reader that wants a signature
    left.sendall(b" " * MAC_BYTES)
    before = open_fds()
    with pytest.raises(Unsigned):
        recv_frame(right, max_blob_bytes=0, key=KEY, with_fds=True)
    assert open_fds() == before
    os.close(sent)


@pytest.mark.parametrize(("start", "error"), [(FRAME.pack(2, 0)[:3], EOFError),
                                              (FRAME.pack(2, 100), MessageTooLarge),
                                              (FRAME.pack(10, 0) + b"{}", EOFError)],
                         ids=["cut-in-the-prefix", "too-large", "cut-after-the-prefix"])
def test_descriptors_of_a_frame_cut_short_or_refused_are_closed(pair: tuple[socket.socket, socket.socket],
                                                                start: bytes, error: type[Exception]) -> None:
    left, right = pair
    sent = memfd(b"x")
    socket.send_fds(left, [start], [sent])
    left.close()
    before = open_fds()
    with pytest.raises(error):
        recv_frame(right, max_blob_bytes=3, with_fds=True)
    assert open_fds() == before
    os.close(sent)


# ---------------------------------------------------------------------------------------------- the arena


def test_an_arena_holds_its_blobs_back_to_back_in_a_sealed_memfd() -> None:
    arena = Arena.create([b"abc", b"", b"de"])
    try:
        assert (arena.size, arena.table()) == (5, [[0, 3], [3, 0], [3, 2]])
        assert arena.memory is not None and arena.memory[:] == b"abcde"
        assert os.readlink(f"/proc/self/fd/{arena.fd}").startswith("/memfd:paperlab-arena")
        assert not os.get_inheritable(arena.fd)
        seals = fcntl.fcntl(arena.fd, fcntl.F_GET_SEALS)
        wanted = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL
        assert seals == wanted
        with pytest.raises(PermissionError):
            os.ftruncate(arena.fd, 1)
        assert os.fstat(arena.fd).st_size == 5
        assert arena.written() == (False, False, False)
    finally:
        arena.close()


def test_an_arena_that_cannot_be_filled_closes_its_memfd() -> None:
    before = open_fds()
    with pytest.raises(TypeError, match="expected a bytes-like object"):
        Arena.create(["abc"])  # type: ignore[list-item]
    assert open_fds() == before


def test_an_arena_releases_a_descriptor_numbered_zero() -> None:
    saved = os.dup(0)
    os.close(0)  # the lowest free number: the arena's memfd gets it
    try:
        arena = Arena.create([b"abc"])
        assert arena.fd == 0
        arena.release_fd()
        assert arena.fd == -1
        with pytest.raises(OSError):
            os.fstat(0)
        arena.close()
    finally:
        os.dup2(saved, 0)
        os.close(saved)


def test_an_arena_without_bytes_needs_no_memfd() -> None:
    arena = Arena.create([b"", b""])
    assert (arena.size, arena.table(), arena.memory, arena.fd) == (0, [[0, 0], [0, 0]], None, -1)
    assert arena.written() == (False, False)
    arena.close()
    assert Arena.create([]).written() == ()


def test_an_arena_sees_which_blobs_the_worker_wrote() -> None:
    arena = Arena.create([b"abc", b"de", b"fgh"])
    try:
        views = map_arena(os.dup(arena.fd), arena.size, arena.table())
        assert [bytes(view) for view in views] == [b"abc", b"de", b"fgh"]
        views[1][0] = ord("D")
        assert arena.written() == (False, True, False)
        views[1][0] = ord("d")  # written back as it was: nothing to blame
        assert arena.written() == (False, False, False)
    finally:
        arena.close()


def test_an_arena_gives_up_its_descriptor_once_and_its_mapping_on_close() -> None:
    arena = Arena.create([b"abc"])
    fd = arena.fd
    arena.release_fd()
    assert arena.fd == -1
    with pytest.raises(OSError):
        os.fstat(fd)
    arena.release_fd()  # a second release closes nothing
    memory = arena.memory
    assert memory is not None and memory[:] == b"abc"
    arena.close()
    assert arena.memory is None and memory.closed
    arena.close()


def test_closing_an_arena_closes_its_descriptor() -> None:
    before = open_fds()
    arena = Arena.create([b"abc"])
    arena.close()
    assert open_fds() == before


@pytest.mark.parametrize("size", [-1, "5", 6], ids=["negative", "not-an-int", "larger-than-the-file"])
def test_a_worker_refuses_an_arena_smaller_than_announced(size: Any) -> None:
    arena = Arena.create([b"abcde"])
    before = open_fds()
    fd = os.dup(arena.fd)
    try:
        with pytest.raises(ProtocolError, match=exactly("arena smaller than announced")):
            map_arena(fd, size, [[0, 5]])
        assert open_fds() == before  # the descriptor is closed whatever happens
    finally:
        arena.close()


def test_a_worker_maps_an_arena_smaller_than_its_file_and_an_empty_one() -> None:
    arena = Arena.create([b"abcde"])
    try:
        assert [bytes(view) for view in map_arena(os.dup(arena.fd), 3, [[1, 2]])] == [b"bc"]
        with pytest.raises(ProtocolError, match=exactly("blob out of range")):
            map_arena(os.dup(arena.fd), 3, [[1, 3]])
        before = open_fds()
        assert [bytes(view) for view in map_arena(os.dup(arena.fd), 0, [[0, 0]])] == [b""]
        with pytest.raises(ProtocolError, match=exactly("blob out of range")):
            map_arena(os.dup(arena.fd), 0, [[0, 1]])  # an empty arena maps nothing of the file
        assert open_fds() == before
    finally:
        arena.close()


# ------------------------------------------------------------------------------------------ caps, exactly


def nested(kind: str, depth: int) -> Any:
    """A value `depth` containers deep around 1."""
    value: Any = 1
    for _ in range(depth):
        value = {"tuple": (value,), "list": [value], "dict": {"k": value}}[kind]
    return value


def nested_tree(kind: str, depth: int) -> Any:
    tree: Any = 1
    for _ in range(depth):
        tree = {"tuple": {"tuple": [tree]}, "list": {"list": [tree]}, "dict": {"dict": [["k", tree]]}}[kind]
    return tree


@pytest.mark.parametrize("kind", ["tuple", "list", "dict"])
def test_values_nest_exactly_to_the_depth_cap(kind: str) -> None:
    tree, _ = encode(nested(kind, MAX_DEPTH))
    assert tree == nested_tree(kind, MAX_DEPTH)
    assert decode(tree, []) == nested(kind, MAX_DEPTH)
    with pytest.raises(ProtocolError, match=exactly(f"value too large or too deeply nested (limits: {MAX_ITEMS} "
                                                    f"items, depth {MAX_DEPTH})")):
        encode(nested(kind, MAX_DEPTH + 1))
    with pytest.raises(ProtocolError, match=exactly("value too large or too deeply nested")):
        decode(nested_tree(kind, MAX_DEPTH + 1), [])


def test_a_value_may_have_exactly_the_item_cap() -> None:
    value = [0] * (MAX_ITEMS - 1)  # the list itself is an item
    tree, _ = encode(value)
    assert decode(tree, []) == value
    with pytest.raises(ProtocolError, match="too large"):
        encode([0] * MAX_ITEMS)
    with pytest.raises(ProtocolError, match="too large"):
        decode({"list": [0] * MAX_ITEMS}, [])


def test_the_item_cap_counts_every_value_of_each_kind_once() -> None:
    value = ([0] * (MAX_ITEMS // 4), {"a": (1,) * (MAX_ITEMS // 4)}, [[2] * (MAX_ITEMS // 4 - 10)])
    assert decode(*encode(value)) == value


def test_an_encoder_counts_items_and_shares_storages_per_value_from_begin() -> None:
    encoder = Encoder()
    shared = torch.arange(4.0)
    for _ in range(3):
        encoder.begin()
        tree = encoder.encode([shared, shared] + [0] * (MAX_ITEMS - 3))
        assert tree["list"][0]["tensor"]["storage"] == tree["list"][1]["tensor"]["storage"]
    assert len(encoder.blobs) == 3  # each value's tensors get bytes of their own


def test_a_string_may_have_exactly_the_string_cap() -> None:
    assert encode("x" * MAX_STRING)[0] == "x" * MAX_STRING
    with pytest.raises(ProtocolError, match=exactly(f"string of {MAX_STRING + 1} characters exceeds {MAX_STRING}")):
        encode("x" * (MAX_STRING + 1))


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_a_tensor_may_have_exactly_the_dimension_cap(device: str) -> None:
    tensor = torch.zeros([1] * MAX_DIMS, device=device)
    assert decode(*encode(tensor)).shape == tensor.shape
    tree, blobs = encode(torch.zeros([1] * (MAX_DIMS + 1), device=device))
    message = "invalid tensor shape or strides" if device == "cpu" else "invalid tensor shape"
    with pytest.raises(ProtocolError, match=exactly(message)):
        decode(tree, blobs)


# ------------------------------------------------------------------------------------- refusals, exactly

CPU = {"dtype": "float32", "shape": [2], "stride": [1], "offset": 0, "storage": 0, "requires_grad": False,
       "parameter": False}


def tensor_tree(**changes: Any) -> Any:
    return {"tensor": {key: value for key, value in dict(CPU, **changes).items() if value is not ...}}


EIGHT_BYTES = [bytearray(8)]

REFUSED = [
    pytest.param(2**64, "an integer beyond 64 bits", id="big-int"),
    pytest.param({"list": []} | {"x": 1}, "unexpected value dict", id="two-keys"),
    pytest.param([1], "unexpected value list", id="bare-list"),
    pytest.param({"dict": [["a"]]}, "malformed dict entry", id="short-dict-entry"),
    pytest.param({"dict": [[1, 2]]}, "malformed dict entry", id="dict-key-not-a-string"),
    pytest.param({"dict": {"a": 1}}, "unknown tag 'dict'", id="dict-body-not-a-list"),
    pytest.param({"float": "1.5"}, "unknown tag 'float'", id="float-not-special"),
    pytest.param({"opaque": 3}, "unknown tag 'opaque'", id="opaque-not-a-string"),
    pytest.param({"tensor": []}, "unknown tag 'tensor'", id="tensor-not-an-object"),
    pytest.param(tensor_tree(dtype="complex64"), "dtype 'complex64' is not allowed", id="dtype"),
    pytest.param(tensor_tree(dtype=...), "dtype None is not allowed", id="no-dtype"),
    pytest.param(tensor_tree(device="cuda:0" + "x" * 30), f"device {('cuda:0' + 'x' * 30)[:20]!r} is not allowed",
                 id="device-cut-at-20"),
    pytest.param(tensor_tree(device=7), "device '7' is not allowed", id="device-a-number"),
    pytest.param(tensor_tree(device="meta", shape="2"), "malformed tensor metadata", id="meta-shape-a-string"),
    pytest.param(tensor_tree(device="meta", shape=[2.0]), "malformed tensor metadata", id="meta-shape-floats"),
    pytest.param(tensor_tree(device="meta", shape=[-1]), "invalid tensor shape", id="meta-negative"),
    pytest.param(tensor_tree(shape=[2.0]), "malformed tensor metadata", id="cpu-shape-floats"),
    pytest.param(tensor_tree(stride=...), "malformed tensor metadata", id="cpu-no-stride"),
    pytest.param(tensor_tree(offset=None), "malformed tensor metadata", id="cpu-no-offset"),
    pytest.param(tensor_tree(storage="0"), "malformed tensor metadata", id="cpu-storage-a-string"),
    pytest.param(tensor_tree(stride=[1, 1]), "invalid tensor shape or strides", id="cpu-stride-length"),
    pytest.param(tensor_tree(stride=[-1]), "invalid tensor shape or strides", id="cpu-negative-stride"),
    pytest.param(tensor_tree(offset=-1), "invalid tensor shape or strides", id="cpu-negative-offset"),
    pytest.param(tensor_tree(layout_stride=[1, 1]), "invalid tensor shape or strides", id="cpu-layout-length"),
    pytest.param(tensor_tree(storage=1), "tensor refers to a missing blob", id="cpu-missing-blob"),
    pytest.param(tensor_tree(storage=-1), "tensor refers to a missing blob", id="cpu-negative-blob"),
    pytest.param(tensor_tree(offset=1), "tensor view reaches outside its storage", id="cpu-past-the-end"),
    pytest.param(tensor_tree(stride=[2]), "tensor view reaches outside its storage", id="cpu-stride-past-the-end"),
    pytest.param(tensor_tree(shape=[0], offset=3), "tensor view starts outside its storage", id="empty-past-the-end"),
    pytest.param(tensor_tree(dtype="float64", shape=[1]), None, id="fits-exactly"),
    pytest.param(tensor_tree(shape=[0], offset=2), None, id="empty-at-the-end"),
]


@pytest.mark.parametrize(("tree", "message"), REFUSED)
def test_a_forged_value_is_refused_saying_why(tree: Any, message: str | None) -> None:
    if message is None:
        Decoder(EIGHT_BYTES).decode(tree)
        return
    with pytest.raises(ProtocolError, match=exactly(message)):
        Decoder(EIGHT_BYTES).decode(tree)


def test_a_storage_that_is_not_whole_elements_is_refused_saying_why() -> None:
    with pytest.raises(ProtocolError, match=exactly("tensor storage size is not a multiple of its element size")):
        Decoder([bytearray(6)]).decode(tensor_tree(shape=[1]))


def test_an_unsupported_device_is_refused_saying_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoding, "DEVICES", ("meta",))  # a machine with one device the protocol does not carry
    with pytest.raises(ProtocolError, match=exactly("device cpu is not supported")):
        encode(torch.zeros(2))


def test_a_request_integer_may_be_any_size_and_a_results_integer_exactly_64_bits() -> None:
    assert Decoder([], results=False).decode(2**70) == 2**70
    for number in (-(2**63), 2**64 - 1):
        assert Decoder([]).decode(number) == number


@pytest.mark.parametrize("number", [-(2**63), 2**64 - 1, 0])
def test_a_result_integer_of_64_bits_is_encoded(number: int) -> None:
    assert encode(number, preserve_views=False) == (number, [])


@pytest.mark.parametrize("number", [-(2**63) - 1, 2**64, 2**70])
def test_a_result_integer_beyond_64_bits_is_refused_where_it_is_encoded_and_a_request_one_is_not(number: int) -> None:
    # The worker names it as a value it cannot read; left to the judge's decoder, the whole reply was refused.
    with pytest.raises(ProtocolError, match=exactly("an integer beyond 64 bits")):
        encode(number, preserve_views=False)
    assert encode([number], preserve_views=True) == ({"list": [number]}, [])


# -------------------------------------------------------------------------------- decoding tensors

def test_compact_results_carry_their_layout_and_only_their_elements() -> None:
    tensor = torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[1:3]
    tree, blobs = encode(tensor, preserve_views=False)
    meta = tree["tensor"]
    assert (meta["shape"], meta["layout_stride"], meta["offset"]) == ([2, 2, 3], [6, 3, 1], 0)
    assert len(blobs[0]) == tensor.numel() * 4
    decoded = decode(tree, [bytearray(blob) for blob in blobs])
    assert torch.equal(decoded, tensor)


@pytest.mark.parametrize(("shape", "strides"), [([3, 0, 2], [2, 2, 1]), ([0], [1]), ([4, 1], [1, 1]), ([], [])])
def test_compact_strides_treat_an_empty_dimension_as_one(shape: list[int], strides: list[int]) -> None:
    assert encoding._contiguous_strides(shape) == strides


def test_a_compact_empty_result_sends_no_bytes() -> None:
    tree, blobs = encode(torch.zeros(3, 0), preserve_views=False)
    assert blobs == [b""]
    assert decode(tree, [bytearray()]).shape == (3, 0)


def test_an_empty_blob_decodes_to_an_empty_tensor_of_the_asked_dtype() -> None:
    decoded = Decoder([b""]).decode(tensor_tree(dtype="int16", shape=[0], stride=[1], offset=0))
    assert decoded.dtype == torch.int16 and decoded.shape == (0,)


def test_without_copy_a_tensor_is_a_view_of_its_blob() -> None:
    blob = bytearray(8)
    decoded = Decoder([blob], copy=False).decode(tensor_tree())
    decoded[1] = 2.0
    assert bytes(blob[4:]) == torch.tensor([2.0]).numpy().tobytes()
    copied = Decoder([blob]).decode(tensor_tree())
    copied[0] = 5.0
    assert bytes(blob[:4]) == bytes(4)


def test_a_preserved_view_sends_its_whole_storage_once() -> None:
    base = torch.arange(6, dtype=torch.int32)
    tree, blobs = encode((base[2:4], base[1:]))
    assert blobs == [base.numpy().tobytes()]
    assert [item["tensor"]["offset"] for item in tree["tuple"]] == [2, 1]


def test_one_tensor_sent_twice_arrives_as_one_object() -> None:
    x = torch.arange(4, dtype=torch.float64).reshape(2, 2)
    tree, blobs = encode((x, [x, x.T], x))
    first, (second, transposed), third = Decoder(blobs).decode(tree)
    assert first is second is third
    assert transposed is not first and transposed.data_ptr() == first.data_ptr()


def test_one_meta_tensor_sent_twice_arrives_as_one_object() -> None:
    x = torch.empty(2, 3, dtype=torch.float64, device="meta", requires_grad=True)
    tree, blobs = encode((x, [x], x.detach()))
    first, (second,), detached = Decoder(blobs).decode(tree)
    assert first is second and first.is_meta and first.requires_grad
    assert detached is not first and not detached.requires_grad


SIXTEEN_BYTES = [bytearray(16), bytearray(16)]


@pytest.mark.parametrize("change", [
    pytest.param({"dtype": "int32"}, id="dtype"),
    pytest.param({"shape": [1]}, id="shape"),
    pytest.param({"stride": [2]}, id="stride"),
    pytest.param({"layout_stride": [2]}, id="layout-stride"),
    pytest.param({"offset": 1}, id="offset"),
    pytest.param({"storage": 1}, id="storage"),
    pytest.param({"requires_grad": True}, id="requires-grad"),
    pytest.param({"parameter": True}, id="parameter"),
    pytest.param({"device": "meta"}, id="device"),
])
def test_tensors_that_differ_in_a_field_they_are_built_from_stay_apart(change: dict[str, Any]) -> None:
    decoder = Decoder(SIXTEEN_BYTES)
    plain = decoder.decode(tensor_tree())
    assert decoder.decode(tensor_tree()) is plain
    assert decoder.decode(tensor_tree(**change)) is not plain


@pytest.mark.parametrize("same", [
    pytest.param({"note": "ignored"}, id="a-field-nothing-reads"),
    pytest.param({"stride": [9], "layout_stride": [1]}, id="stride-beside-the-layout-that-builds"),
    pytest.param({"parameter": 1}, id="parameter-not-true"),
    pytest.param({"dtype": "int64", "requires_grad": True}, id="grad-on-an-integer-dtype"),
])
def test_descriptions_built_alike_arrive_as_one_object(same: dict[str, Any]) -> None:
    base = {"dtype": same.get("dtype", "float32")}
    decoder = Decoder(SIXTEEN_BYTES)
    assert decoder.decode(tensor_tree(**same)) is decoder.decode(tensor_tree(**base))


@pytest.mark.parametrize("forged", [
    pytest.param({"offset": 0.0}, id="offset-a-float"),
    pytest.param({"storage": False}, id="storage-a-bool"),
    pytest.param({"shape": [2.0]}, id="shape-of-floats"),
    pytest.param({"stride": [True]}, id="stride-of-bools"),
])
def test_a_forged_description_is_refused_after_its_lawful_twin(forged: dict[str, Any]) -> None:
    """The twin's object is not handed out for it: every description is checked before it is looked up."""
    decoder = Decoder(SIXTEEN_BYTES)
    decoder.decode(tensor_tree())
    with pytest.raises(ProtocolError, match=exactly("malformed tensor metadata")):
        decoder.decode(tensor_tree(**forged))


def test_requires_grad_is_set_on_a_decoded_float_tensor() -> None:
    decoded = Decoder(EIGHT_BYTES).decode(tensor_tree(requires_grad=True))
    assert decoded.requires_grad and decoded.is_leaf and type(decoded) is torch.Tensor


def test_an_opaque_request_argument_is_cut_to_200_characters() -> None:
    made = Decoder([], results=False, opaque=lambda name: name).decode({"opaque": "n" * 300})
    assert made == "n" * 200


def test_a_request_refuses_an_opaque_value_without_an_opaque_class() -> None:
    with pytest.raises(ProtocolError, match=exactly("unknown tag 'opaque'")):
        Decoder([], results=False).decode({"opaque": "thing"})


def test_a_dict_with_a_key_that_is_not_a_string_becomes_one_opaque_value() -> None:
    assert encode({"a": 1, 2: "b"}) == ({"opaque": "dict with non-string keys"}, [])


def test_an_opaque_type_name_is_cut_to_200_characters() -> None:
    long = type("N" * 300, (), {})
    assert encode(long())[0] == {"opaque": "N" * 200}


def test_an_opaque_result_hashes_by_identity() -> None:
    first, second = Opaque("x"), Opaque("x")
    assert hash(first) == id(first) and hash(first) != hash(second)
    assert len({first, second}) == 2


def test_a_header_of_encoded_values_is_plain_json() -> None:
    tree, _ = encode({"a": (1.5, float("inf")), "b": [None, True]})
    assert json.loads(dumps(tree)) == {"dict": [["a", {"tuple": [1.5, {"float": "inf"}]}],
                                                 ["b", {"list": [None, True]}]]}


class _Sub(torch.Tensor):
    pass


_REAL_AS_STRIDED = torch.as_strided
BLOB_OF_TWO = bytearray(torch.tensor([1.0, 2.0]).numpy().tobytes())

FORGED_VIEWS = [
    pytest.param(lambda b, shape, stride, offset: _REAL_AS_STRIDED(b, shape, stride, offset).clone(), {}, id="copy"),
    pytest.param(lambda b, shape, stride, offset: _REAL_AS_STRIDED(b, shape, stride, offset).as_subclass(_Sub), {},
                 id="subclass"),
    pytest.param(lambda b, shape, stride, offset: _REAL_AS_STRIDED(b.view(torch.int32), shape, stride, offset), {},
                 id="dtype"),
    pytest.param(lambda b, shape, stride, offset: _REAL_AS_STRIDED(b, [1], [1], offset), {}, id="shape"),
    pytest.param(lambda b, shape, stride, offset: _REAL_AS_STRIDED(b, shape, [0], offset), {}, id="stride"),
    pytest.param(lambda b, shape, stride, offset: _REAL_AS_STRIDED(b, shape, stride, 1), {"shape": [1]},
                 id="offset"),
    pytest.param(lambda b, shape, stride, offset: torch.frombuffer(memoryview(BLOB_OF_TWO)[:4], dtype=torch.float32),
                 {"shape": [1]}, id="shorter-storage-at-the-same-address"),
]


@pytest.mark.parametrize(("forged", "changes"), FORGED_VIEWS)
def test_a_view_that_is_not_the_blobs_own_memory_is_refused(monkeypatch: pytest.MonkeyPatch, forged: Any,
                                                           changes: dict[str, Any]) -> None:
    """A kernel registered for as_strided could hand the function a copy, or another view, of an argument: the
    decoder checks what it got, through descriptors, against the blob and the metadata."""
    monkeypatch.setattr(encoding, "_as_strided", forged)
    with pytest.raises(ProtocolError) as caught:
        Decoder([BLOB_OF_TWO], copy=False).decode(tensor_tree(**changes))
    assert str(caught.value) == ("a decoded argument is not the memory it was sent in (an operator the grader uses "
                                 "to rebuild arguments was changed)")


@pytest.mark.parametrize("changes", [{}, {"shape": [1], "offset": 1}, {"shape": [2], "stride": [0]}])
def test_the_blobs_own_view_passes_the_check(changes: dict[str, Any]) -> None:
    decoded = Decoder([BLOB_OF_TWO], copy=False).decode(tensor_tree(**changes))
    assert decoded.untyped_storage().data_ptr() == torch.frombuffer(BLOB_OF_TWO, dtype=torch.uint8).data_ptr()


def test_an_argument_sent_as_requiring_grad_that_does_not_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoding, "_t_requires_grad_", lambda tensor, flag: tensor)  # a kernel that does nothing
    with pytest.raises(ProtocolError) as caught:
        Decoder([BLOB_OF_TWO], copy=False).decode(tensor_tree(requires_grad=True))
    assert str(caught.value) == ("a decoded argument does not require grad as it was sent (an operator the grader "
                                 "uses to rebuild arguments was changed)")
    monkeypatch.undo()
    assert Decoder([BLOB_OF_TWO], copy=False).decode(tensor_tree(requires_grad=True)).requires_grad
