"""This is what you get when num_groups is not checked against C: a G that does not divide the channels fails inside reshape (RuntimeError) instead of raising ValueError.

Overrides: check_num_groups
"""


def check_num_groups(num_groups, x):
    if isinstance(num_groups, bool) or not isinstance(num_groups, int):
        raise TypeError(f"num_groups must be a Python int, got {type(num_groups).__name__}")
    if num_groups < 1:
        raise ValueError(f"num_groups must be >= 1, got {num_groups}")
