"""This is what you get when window=True is accepted as a window of 1 (bool is a subclass of int) instead of raising TypeError.

Overrides: check_length_and_window
"""


def check_length_and_window(T, window):
    if not isinstance(T, int) or not isinstance(window, int):
        raise TypeError("T and window must be ints")
    if T < 0 or window < 1:
        raise ValueError(f"T must be >= 0 and window >= 1, got {T} and {window}")
