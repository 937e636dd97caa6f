"""This is what you get when tau is checked with isinstance(tau, (int, float)) alone: True and False pass as 1 and 0.

Overrides: check_tau
"""

import math


def check_tau(tau):
    if not isinstance(tau, int | float):
        raise TypeError(f"tau must be a Python int or float, got {type(tau).__name__}")
    if not math.isfinite(tau) or not 0 <= tau <= 1:
        raise ValueError(f"tau must be a finite number in [0, 1], got {tau}")
