"""training is only tested for truth, so training=1 or "True" is accepted instead of refused.

Overrides: check_settings
"""

import math


def check_settings(p, training):
    if isinstance(p, bool) or not isinstance(p, int | float):
        raise TypeError(f"p must be a Python int or float, got {type(p).__name__}")
    if not math.isfinite(p) or not 0 <= p <= 1:
        raise ValueError(f"p must be in [0, 1], got {p}")
