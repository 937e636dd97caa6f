# Unbounded recursion after raising the recursion limit far past what any exercise needs: Python frames live on
# the heap, so without a cap it would grow until the memory limit and take seconds to unwind.
import sys

sys.setrecursionlimit(10**7)
LIMIT_SEEN = sys.getrecursionlimit()


def add_one(x):
    return add_one(x)


def scaled_sum(x, factor):
    raise ValueError(f"the recursion limit is {LIMIT_SEEN}")
