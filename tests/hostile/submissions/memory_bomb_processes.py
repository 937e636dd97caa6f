# Each process stays under its own RLIMIT_DATA; together they exceed the cgroup's memory limit, so the kernel's
# OOM killer ends the biggest one (the worker). The helpers close their copy of the job socket, so the judge
# sees the worker die rather than a silent socket.
import os
import time


def touch(megabytes):
    block = bytearray(megabytes * 1024 * 1024)
    for index in range(0, len(block), 4096):
        block[index] = 1
    return block


def add_one(x):
    for _ in range(4):
        if os.fork() == 0:
            os.closerange(3, 4096)
            kept = touch(60)
            time.sleep(60)
            os._exit(len(kept) and 0)
    kept = touch(240)
    time.sleep(60)
    return x + len(kept)


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
