"""step = 0 is not refused, so the bias correction divides by 1 - beta^0 = 0 and the step is inf or nan.

Overrides: check_hyperparameters
"""

import math

from helpers import is_number


def check_hyperparameters(step, lr, betas, eps, weight_decay):
    if isinstance(step, bool) or not isinstance(step, int):
        raise TypeError(f"step must be a Python int, got {type(step).__name__}")
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if not isinstance(betas, tuple):
        raise TypeError(f"betas must be a tuple (beta1, beta2), got {type(betas).__name__}")
    if len(betas) != 2:
        raise ValueError(f"betas must hold exactly two values (beta1, beta2), got {len(betas)}")
    for name, value in (("lr", lr), ("beta1", betas[0]), ("beta2", betas[1]), ("eps", eps),
                        ("weight_decay", weight_decay)):
        if not is_number(value):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value}")
    if lr < 0 or eps <= 0 or weight_decay < 0 or not (0 <= betas[0] < 1 and 0 <= betas[1] < 1):
        raise ValueError("a setting is out of range")
