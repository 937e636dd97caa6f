# Unbounded recursion after raising the recursion limit (the grader lowers 100,000 to its cap of 10,000): the
# RecursionError comes with thousands of frames.
import sys

sys.setrecursionlimit(100_000)


def add_one(x):
    return add_one(x)


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
