"""This is what you get when beta_start above beta_end is accepted: the schedule then removes noise as t grows, and the forward process no longer ends near pure noise.

Overrides: check_schedule_args
"""

import math


def check_schedule_args(T, beta_start, beta_end):
    if isinstance(T, bool) or not isinstance(T, int):
        raise TypeError("T must be a Python int")
    if T < 1:
        raise ValueError("T must be >= 1")
    for name, value in (("beta_start", beta_start), ("beta_end", beta_end)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name} must be a Python int or float")
        if not math.isfinite(value) or not 0 < value < 1:
            raise ValueError(f"{name} must lie in (0, 1)")
