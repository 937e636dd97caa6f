"""This is what you get when num_merges is converted with int() instead of checked: 2.0, 2.7 and True are all accepted as numbers of merges.

Overrides: check_count
"""


def check_count(num_merges):
    if int(num_merges) < 0:
        raise ValueError(f"num_merges must be >= 0, got {num_merges}")
