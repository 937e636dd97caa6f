"""This is what you get when a negative num_merges is not refused: the loop simply never runs and an empty list comes back, hiding the caller's mistake.

Overrides: check_count
"""


def check_count(num_merges):
    if isinstance(num_merges, bool) or not isinstance(num_merges, int):
        raise TypeError(f"num_merges must be a Python int, got {type(num_merges).__name__}")
