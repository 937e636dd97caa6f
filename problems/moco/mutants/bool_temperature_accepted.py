"""its own temperature check lets bool through (True is an int in Python).

Overrides: _check_temperature
"""

import math


def _check_temperature(temperature):
    if not isinstance(temperature, (int, float)) or not math.isfinite(temperature):
        raise TypeError("temperature must be a number")
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    return float(temperature)
