"""betas is only unpacked, never type-checked, so a list or a tuple holding a string slips through or crashes.

Overrides: check_hyperparameters
"""

import math

from helpers import is_number


def check_hyperparameters(step, lr, betas, eps, weight_decay):
    if isinstance(step, bool) or not isinstance(step, int):
        raise TypeError(f"step must be a Python int, got {type(step).__name__}")
    if step < 1:
        raise ValueError(f"step counts this update from 1, got {step}")
    beta1, beta2 = betas
    for name, value in (("lr", lr), ("eps", eps), ("weight_decay", weight_decay)):
        if not is_number(value):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value}")
    if lr < 0 or eps <= 0 or weight_decay < 0 or not (0 <= beta1 < 1 and 0 <= beta2 < 1):
        raise ValueError("a setting is out of range")
