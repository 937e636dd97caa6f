# Crashes the worker with SIGSEGV (ctypes is refused to submissions; faulthandler's test hook is not).
import faulthandler


def add_one(x):
    faulthandler._sigsegv()


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
