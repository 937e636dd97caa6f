"""Frames: `>II` (header length, blob length), a JSON header, then the blobs. Frames the worker sends carry a
32-byte HMAC-SHA256 of header and blobs right after the prefix, keyed by a secret the judge gives each child:
bytes the learner's code writes on the channel itself do not verify. Every length is checked against a cap before
memory is allocated for it, and every receive has one deadline for the whole frame."""

from __future__ import annotations

import _hashlib
import _json
import _socket
import array
import hmac
import os
import socket
import struct
import time
from typing import Any

from grader.protocol.arena import blob_table
from grader.protocol.exceptions import MessageTooLarge, ProtocolError, Unsigned

FRAME = struct.Struct(">II")
MAC_BYTES = 32
MAC_DIGEST = "sha256"  # the HMAC's hash, by its OpenSSL name
MAX_HEADER_BYTES = 16 * 1024 * 1024
COALESCE_BYTES = 256 * 1024  # frames whose tensors total at most this are sent with one sendall
_FD_TYPECODE = "i"  # descriptors travel as C ints (SCM_RIGHTS)

# Captured at import: C code only, out of reach of whatever the learner rebinds later.
_json_encoder = _json.make_encoder(  # markers, default, encoder, indent, separators, sort, skipkeys, allow_nan
    None, None, _json.encode_basestring_ascii, None, ":", ",", False, False, True  # type: ignore[arg-type]
)
_json_scanner = _json.make_scanner(__import__("json").JSONDecoder())
# The judge writes its headers with orjson, ten times faster than the standard library's C encoder (a MoCo
# grading's 53 requests: 5.5 ms -> 0.5), and the standard library reads them back to the same values. What orjson
# refuses the standard library writes, as before: an integer past 64 bits, a lone surrogate, and what it would not
# write or would write through the value's own methods (a subclass of dict, str or int, a key that is not a string,
# a dataclass, a date). It would write a NaN as null, so no header holds a non-finite float: protocol.Encoder sends
# one as {"float": repr}, and the limits are bounded. Headers are read by the standard library alone: orjson reads
# an integer past 64 bits as a float. The sandbox mounts torch and numpy alone (grader/sandbox.py), so the worker
# writes with the standard library.
try:
    from orjson import OPT_PASSTHROUGH_DATACLASS, OPT_PASSTHROUGH_DATETIME, OPT_PASSTHROUGH_SUBCLASS
    from orjson import JSONEncodeError as _OrjsonRefused
    from orjson import dumps as _orjson_dumps
    _ORJSON_OPTIONS: int = OPT_PASSTHROUGH_DATACLASS | OPT_PASSTHROUGH_DATETIME | OPT_PASSTHROUGH_SUBCLASS
except ModuleNotFoundError:
    _orjson_dumps = None  # type: ignore[assignment]
_sendall = _socket.socket.sendall
_sendmsg = _socket.socket.sendmsg
_recv_into = _socket.socket.recv_into
_recvmsg_into = _socket.socket.recvmsg_into
_settimeout = _socket.socket.settimeout
_hmac_new = _hashlib.hmac_new
_monotonic = time.monotonic
_CMSG_SPACE = socket.CMSG_SPACE
_SOL_SOCKET = socket.SOL_SOCKET
_SCM_RIGHTS = socket.SCM_RIGHTS
_join = "".join


def dumps(value: Any) -> bytes:
    if _orjson_dumps is not None:
        try:
            return _orjson_dumps(value, option=_ORJSON_OPTIONS)
        except _OrjsonRefused:
            pass
    return _join(_json_encoder(value, 0)).encode()


def loads(data: bytes | bytearray | memoryview) -> Any:
    try:
        text = bytes(data).decode()
        value, end = _json_scanner(text, 0)
    except StopIteration:
        raise ProtocolError("malformed header: not JSON") from None
    except (ValueError, RecursionError) as exc:  # bad UTF-8, a 5000-digit integer, nesting too deep
        raise ProtocolError(f"malformed header: {str(exc)[:200]}") from None
    if text[end:].strip():
        raise ProtocolError("malformed header: extra data after the JSON value")
    return value


def signature(key: bytes, header: bytes | bytearray, blobs: list[bytes] | list[bytearray]) -> bytes:
    mac = _hmac_new(key, digestmod=MAC_DIGEST)
    mac.update(header)
    for blob in blobs:
        mac.update(blob)
    return bytes(mac.digest())


def send_frame(sock: socket.socket, header: dict[str, Any], blobs: list[bytes] | None = None, *,
               key: bytes | None = None, fds: tuple[int, ...] = ()) -> None:
    """Send one frame. `key`: sign it (the worker's replies). `fds`: pass these descriptors with it."""
    send_parts(sock, frame_parts(header, blobs, key=key), fds=fds)


def frame_parts(header: dict[str, Any], blobs: list[bytes] | None = None, *, key: bytes | None = None) -> list[bytes]:
    """One frame's bytes, ready for `send_parts`: encoded ahead, the judge builds the next request while the
    worker still answers the one before."""
    blobs = blobs or []
    offsets = []
    position = 0
    for blob in blobs:
        offsets.append([position, len(blob)])
        position += len(blob)
    encoded = dumps(dict(header, _blobs=offsets))
    prefix = FRAME.pack(len(encoded), position)
    if key is not None:
        prefix += signature(key, encoded, blobs)
    if position <= COALESCE_BYTES:  # one system call (and one wake-up of the peer) for a typical small frame
        return [b"".join([prefix, encoded, *blobs])]
    return [prefix + encoded, *blobs]


def send_parts(sock: socket.socket, parts: list[bytes], *, fds: tuple[int, ...] = ()) -> None:
    """Send a frame's parts (`frame_parts`); `fds` go with its first byte."""
    data, blobs = parts[0], parts[1:]
    if fds:
        rights = [(_SOL_SOCKET, _SCM_RIGHTS, array.array(_FD_TYPECODE, fds).tobytes())]
        sent = _sendmsg(sock, [data], rights)
        data = data[sent:]
    if data:
        _sendall(sock, data)
    for blob in blobs:
        if blob:
            _sendall(sock, blob)


def _recv_exactly(sock: socket.socket, size: int, deadline: float | None) -> bytearray:
    buffer = bytearray(size)
    view = memoryview(buffer)
    received = 0
    while received < size:
        _wait_budget(sock, deadline)
        count = _recv_into(sock, view[received:])  # at most the view's length: what is missing
        if count == 0:
            raise EOFError("peer closed the connection")
        received += count
    return buffer


def _wait_budget(sock: socket.socket, deadline: float | None) -> None:
    """Every read of a frame shares one deadline: a peer that trickles a byte at a time still runs out."""
    if deadline is None:
        return
    remaining = deadline - _monotonic()
    if remaining <= 0:
        raise TimeoutError("the frame did not arrive in time")
    _settimeout(sock, remaining)


def _recv_prefix_with_fds(sock: socket.socket, size: int, deadline: float | None) -> tuple[bytearray, list[int]]:
    """The first `size` bytes and the descriptors that came with them (sent with the frame's first byte)."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    received = 0
    fds: list[int] = []
    while received < size:
        _wait_budget(sock, deadline)
        count, ancillary, _, _ = _recvmsg_into(sock, [view[received:]], _CMSG_SPACE(4 * 4))
        for level, kind, data in ancillary:
            if level == _SOL_SOCKET and kind == _SCM_RIGHTS:
                fds.extend(array.array(_FD_TYPECODE, data[: len(data) - len(data) % 4]))
        if count == 0:
            for fd in fds:
                os.close(fd)
            raise EOFError("peer closed the connection")
        received += count
    return buffer, fds


# A frame read whole and not yet opened (`open_frame`): its MAC (b"" unsigned), header bytes, blob bytes and the
# descriptors that came with it. A tuple, not a class of ours: the worker reads frames too (see the module's top).
RawFrame = tuple[bytes, bytearray, bytearray, list[int]]


def read_frame(sock: socket.socket, *, max_blob_bytes: int, signed: bool, deadline: float | None,
               with_fds: bool) -> RawFrame:
    """Read one frame's bytes before `deadline` (time.monotonic(); TimeoutError after it). Raises MessageTooLarge
    before allocating anything over the caps. `signed`: a MAC follows the prefix. `with_fds`: keep the
    descriptors that came with it (the caller owns them), else none are expected."""
    prefix_size = FRAME.size + (MAC_BYTES if signed else 0)
    if with_fds:
        prefix, fds = _recv_prefix_with_fds(sock, prefix_size, deadline)
    else:
        prefix, fds = _recv_exactly(sock, prefix_size, deadline), []
    try:
        header_size, blob_size = FRAME.unpack(bytes(prefix[: FRAME.size]))
        if header_size > MAX_HEADER_BYTES:
            raise MessageTooLarge(header_size, MAX_HEADER_BYTES)
        if blob_size > max_blob_bytes:
            raise MessageTooLarge(blob_size, max_blob_bytes)
        encoded = _recv_exactly(sock, header_size, deadline)
        payload = _recv_exactly(sock, blob_size, deadline)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return bytes(prefix[FRAME.size :]), encoded, payload, fds


def open_frame(frame: RawFrame, *, key: bytes | None = None) -> tuple[dict[str, Any], list[bytearray]]:
    """The header and blobs of a frame `read_frame` read. Raises Unsigned when `key` is given and the signature
    does not verify, ProtocolError when the header is malformed; the frame's descriptors are closed then."""
    mac, encoded, payload, fds = frame
    try:
        if key is not None and not hmac.compare_digest(mac, signature(key, encoded, [payload])):
            raise Unsigned("a message on the worker's channel was not written by the worker")
        header = loads(encoded)
        if type(header) is not dict:
            raise ProtocolError("header must be a JSON object")
        blobs = blob_table(header.pop("_blobs", []), payload)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return header, blobs


def recv_frame(
    sock: socket.socket, *, max_blob_bytes: int, key: bytes | None = None, deadline: float | None = None,
    with_fds: bool = False,
) -> tuple[dict[str, Any], list[bytearray]] | tuple[dict[str, Any], list[bytearray], list[int]]:
    """Read one frame before `deadline` (time.monotonic(); TimeoutError after it). Raises MessageTooLarge before
    allocating anything over the caps, Unsigned when `key` is given and the signature does not verify.
    `with_fds`: also return the descriptors that came with the frame (the caller owns them)."""
    frame = read_frame(sock, max_blob_bytes=max_blob_bytes, signed=key is not None, deadline=deadline,
                       with_fds=with_fds)
    header, blobs = open_frame(frame, key=key)
    return (header, blobs, frame[3]) if with_fds else (header, blobs)
