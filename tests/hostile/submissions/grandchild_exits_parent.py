# The worker forks a helper that keeps (a copy of) the job socket open, then ends itself with os._exit.
# The worker is gone at once; only a judge that watches the socket instead of the process would wait.
import os
import time


def add_one(x):
    if os.fork() == 0:
        time.sleep(60)
    os._exit(0)


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
