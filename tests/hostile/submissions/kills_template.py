# Kills the template process it was forked from (its parent inside the sandbox), then answers correctly.
import os
import signal


def add_one(x):
    os.kill(os.getppid(), signal.SIGKILL)
    return x + 1


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
