"""This is what you get when a bool is accepted as a temperature or momentum (True is an int in Python) instead of raising TypeError.

Overrides: check_number
"""

import math


def check_number(name, value, *, low, high=None, low_open=True):
    if not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    above_low = value > low if low_open else value >= low
    if not (math.isfinite(value) and above_low and (high is None or value <= high)):
        raise ValueError(f"{name} is out of range: {value}")
