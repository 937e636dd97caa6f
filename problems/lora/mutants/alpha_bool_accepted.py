"""alpha=True is accepted as 1 (bool is an int), and alpha <= 0 is not refused.

Overrides: check_alpha
"""

import math


def check_alpha(alpha):
    if not isinstance(alpha, int | float):
        raise TypeError(f"alpha must be a Python float or int, got {type(alpha).__name__}")
    if not math.isfinite(alpha):
        raise ValueError(f"alpha must be finite, got {alpha}")
