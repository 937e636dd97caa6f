# Starts sleeping threads until it cannot start another.
import threading
import time


def add_one(x):
    while True:
        threading.Thread(target=time.sleep, args=(100,), daemon=True).start()


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
