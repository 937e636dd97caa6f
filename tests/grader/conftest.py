"""Fixtures shared by the grader's tests."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    """Two connected stream sockets: the judge's end and the worker's."""
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    right.settimeout(5)  # a reader that wrongly waits for bytes that never come fails instead of hanging
    yield left, right
    left.close()
    right.close()
