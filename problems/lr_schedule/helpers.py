"""Linear warmup and cosine decay: the validation helpers, supplied and read-only.

`from helpers import check_rates, check_step_counts` in your solution."""

import math


def check_step_counts(step, warmup_steps, total_steps):
    """Raise TypeError unless the three counts are Python ints (not bool); ValueError unless step >= 0,
    warmup_steps >= 0 and total_steps > warmup_steps."""
    for name, value in (("step", step), ("warmup_steps", warmup_steps), ("total_steps", total_steps)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be a Python int, got {type(value).__name__}")
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if warmup_steps < 0:
        raise ValueError(f"warmup_steps must be >= 0, got {warmup_steps}")
    if total_steps <= warmup_steps:
        raise ValueError(f"total_steps must be greater than warmup_steps, got {total_steps} <= {warmup_steps}")


def check_rates(base_lr, min_lr):
    """Raise TypeError unless both rates are Python ints/floats (not bool); ValueError unless base_lr is finite
    and > 0 and min_lr is finite in [0, base_lr]."""
    for name, value in (("base_lr", base_lr), ("min_lr", min_lr)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(base_lr) or base_lr <= 0:
        raise ValueError(f"base_lr must be finite and > 0, got {base_lr}")
    if not math.isfinite(min_lr) or not 0 <= min_lr <= base_lr:
        raise ValueError(f"min_lr must be finite and in [0, base_lr = {base_lr}], got {min_lr}")
