"""This is what you get when a bool passes for a temperature: True is an int in Python, so an int check lets it in.

Overrides: check_temperature
"""

import math


def check_temperature(temperature):
    if not isinstance(temperature, int | float):  # isinstance(True, int) is True
        raise TypeError(f"temperature must be a Python int or float, got {type(temperature).__name__}")
    if not math.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be finite and > 0, got {temperature}")
