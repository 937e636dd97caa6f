"""This is what you get when only temperature <= 0 is refused: nan fails every comparison and inf is positive, so
both pass and the loss comes back nan or 0 instead of a ValueError.

Overrides: check_temperature
"""


def check_temperature(temperature):
    if isinstance(temperature, bool) or not isinstance(temperature, int | float):
        raise TypeError(f"temperature must be a Python int or float, got {type(temperature).__name__}")
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
