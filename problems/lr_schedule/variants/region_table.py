"""Variant (correct): a small table of regions, the cosine as a shifted sine."""

import math

from helpers import check_rates, check_step_counts


def _phase(step, warmup_steps, total_steps):
    """Which region the step is in, and how far through it (0..1)."""
    if step < warmup_steps:
        return "warmup", (step + 1) / warmup_steps
    if step >= total_steps:
        return "floor", 1.0
    return "decay", (step - warmup_steps) / (total_steps - warmup_steps)


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    """A table of regions, with the cosine written as a shifted sine."""
    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    phase, fraction = _phase(step, warmup_steps, total_steps)
    if phase == "warmup":
        return float(base_lr * fraction)
    if phase == "floor":
        return float(min_lr)
    return float(min_lr + (base_lr - min_lr) * (1 + math.sin(math.pi * (0.5 - fraction))) / 2)
