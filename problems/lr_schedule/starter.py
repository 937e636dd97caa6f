"""Linear warmup + cosine decay. Implement lr_at below; the two helpers check the contract for you."""

import math


def _check_step_counts(step, warmup_steps, total_steps):
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


def _check_rates(base_lr, min_lr):
    """Raise TypeError unless both rates are Python ints/floats (not bool); ValueError unless base_lr is finite
    and > 0 and min_lr is finite in [0, base_lr]."""
    for name, value in (("base_lr", base_lr), ("min_lr", min_lr)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(base_lr) or base_lr <= 0:
        raise ValueError(f"base_lr must be finite and > 0, got {base_lr}")
    if not math.isfinite(min_lr) or not 0 <= min_lr <= base_lr:
        raise ValueError(f"min_lr must be finite and in [0, base_lr = {base_lr}], got {min_lr}")


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    """The learning rate for update number `step` (0-based), as a Python float.

    step < warmup_steps:                 base_lr * (step + 1) / warmup_steps
    warmup_steps <= step <= total_steps: cosine from base_lr (at warmup_steps) to min_lr (at total_steps)
    step > total_steps:                  min_lr
    """
    _check_step_counts(step, warmup_steps, total_steps)
    _check_rates(base_lr, min_lr)
    # 1. warmup: count the steps from one, so step 0 already has a non-zero rate
    # 2. after total_steps: the floor, without evaluating the cosine past its minimum
    # 3. in between: progress = how far through the decay span (total_steps - warmup_steps) the step is,
    #    then half a cosine from base_lr down to min_lr
    raise NotImplementedError("lr_at: follow steps 1-3 above")
