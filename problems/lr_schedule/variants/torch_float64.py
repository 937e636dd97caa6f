"""Variant (correct): torch float64 arithmetic, returned with .item()."""

import math


def _check_step_counts(step, warmup_steps, total_steps):
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
    for name, value in (("base_lr", base_lr), ("min_lr", min_lr)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(base_lr) or base_lr <= 0:
        raise ValueError(f"base_lr must be finite and > 0, got {base_lr}")
    if not math.isfinite(min_lr) or not 0 <= min_lr <= base_lr:
        raise ValueError(f"min_lr must be finite and in [0, base_lr = {base_lr}], got {min_lr}")


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    """torch in float64 for the arithmetic, then .item(): the precision of Python floats."""
    import torch

    _check_step_counts(step, warmup_steps, total_steps)
    _check_rates(base_lr, min_lr)
    base = torch.tensor(base_lr, dtype=torch.float64)
    floor = torch.tensor(min_lr, dtype=torch.float64)
    if step < warmup_steps:
        return (base * ((step + 1) / warmup_steps)).item()
    progress = torch.tensor((step - warmup_steps) / (total_steps - warmup_steps), dtype=torch.float64)
    progress = progress.clamp(max=1.0)
    return (floor + (base - floor) * (1 + torch.cos(torch.pi * progress)) / 2).item()
