"""max_norm is never validated, so 0, a negative value or nan is accepted.

Overrides: check_settings
"""

import math


def check_settings(max_norm, eps):
    for name, value in (("max_norm", max_norm), ("eps", eps)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(eps) or eps < 0:
        raise ValueError(f"eps must be finite and >= 0, got {eps}")
