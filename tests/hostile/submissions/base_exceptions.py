# The exceptions a naive `except Exception` in a worker would let through.
import sys


class Escape(BaseException):
    pass


def add_one(x):
    raise KeyboardInterrupt("pressed ctrl-c")


def scaled_sum(x, factor):
    if factor == 2.5:
        sys.exit(0)
    raise Escape("custom base exception")
