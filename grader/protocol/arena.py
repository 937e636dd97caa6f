"""Arenas: the tensors of a `calls` request do not travel in the frame. The judge writes them into a sealed memfd that
it keeps mapped and passes to the worker with the frame; the learner's function works on that shared memory, so
whether it wrote to its arguments is something the judge sees for itself afterwards."""

from __future__ import annotations

import fcntl
import mmap
import os
from dataclasses import dataclass
from typing import Any

from grader.protocol.exceptions import ProtocolError


def blob_table(table: Any, payload: bytearray | memoryview) -> list[Any]:
    """The blobs a frame's blob table names, as views of `payload` (each entry [start, length], within it)."""
    if type(table) is not list:
        raise ProtocolError("malformed blob table")
    blobs = []
    for entry in table:
        if not (type(entry) is list and len(entry) == 2 and all(type(x) is int for x in entry)):
            raise ProtocolError("malformed blob table")
        start, length = entry
        if start < 0 or length < 0 or start + length > len(payload):
            raise ProtocolError("blob out of range")
        blobs.append(payload[start : start + length])
    return blobs


@dataclass
class Arena:
    """The tensors of one request, in a sealed memfd that the judge maps and the worker maps too.

    The judge keeps the bytes it wrote; after the worker's reply, `written()` compares them with what the
    memory holds now. Sealed against shrinking and growing, so the worker cannot make the judge's mapping
    fault. The worker gets the descriptor, the judge keeps only the mapping."""

    blobs: list[bytes]
    offsets: list[tuple[int, int]]
    memory: mmap.mmap | None
    fd: int = -1

    @classmethod
    def create(cls, blobs: list[bytes]) -> Arena:
        offsets, position = [], 0
        for blob in blobs:
            offsets.append((position, len(blob)))
            position += len(blob)
        if position == 0:
            return cls(blobs=list(blobs), offsets=offsets, memory=None)
        fd = os.memfd_create("paperlab-arena", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(fd, position)
            memory = mmap.mmap(fd, position)
            memory[:] = b"".join(blobs)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        except BaseException:
            os.close(fd)
            raise
        return cls(blobs=list(blobs), offsets=offsets, memory=memory, fd=fd)

    @property
    def size(self) -> int:
        return sum(length for _, length in self.offsets)

    def table(self) -> list[list[int]]:
        return [[start, length] for start, length in self.offsets]

    def release_fd(self) -> None:
        """After the descriptor went to the worker: the judge needs only its mapping."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def written(self) -> tuple[bool, ...]:
        """For each blob: whether its bytes differ from what the judge wrote."""
        if self.memory is None:
            return tuple(False for _ in self.blobs)
        return tuple(self.memory[start : start + length] != blob
                     for (start, length), blob in zip(self.offsets, self.blobs, strict=True))

    def close(self) -> None:
        self.release_fd()
        if self.memory is not None:
            self.memory.close()
            self.memory = None


def map_arena(fd: int, size: int, table: Any) -> list[memoryview]:
    """The worker's side: the request's blobs as writable views of the shared memory (closes `fd`)."""
    try:
        if type(size) is not int or size < 0 or os.fstat(fd).st_size < size:
            raise ProtocolError("arena smaller than announced")
        memory = mmap.mmap(fd, size) if size else None
    finally:
        os.close(fd)
    return blob_table(table, memoryview(memory) if memory is not None else memoryview(bytearray()))
