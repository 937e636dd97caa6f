"""its own temperature check lets bool through (True is an int in Python).

Overrides: validate_loss_inputs
"""

import math

_reference_validate_loss_inputs = validate_loss_inputs


def validate_loss_inputs(query, key, queue, temperature):
    if not isinstance(temperature, (int, float)) or not math.isfinite(temperature):
        raise TypeError("temperature must be a number")
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    _reference_validate_loss_inputs(query, key, queue, 1.0)  # the supplied checks of the tensors
