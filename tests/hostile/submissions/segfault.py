# Reads address 0 through ctypes: the worker dies with SIGSEGV.
import ctypes


def add_one(x):
    return ctypes.string_at(0)


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
