"""eps=True is accepted as 1 (bool is a subclass of int), and eps = 0 is not refused.

Overrides: check_eps
"""

import math


def check_eps(eps):
    if not isinstance(eps, int | float):
        raise TypeError(f"eps must be a Python float or int, got {type(eps).__name__}")
    if not math.isfinite(eps) or eps < 0:
        raise ValueError(f"eps must be finite and >= 0, got {eps}")
