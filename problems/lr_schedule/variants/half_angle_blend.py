"""Variant (correct): the half-angle cosine, blended as a weighted average."""

import math

from helpers import check_rates, check_step_counts


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    """Half-angle form: (1 + cos x) / 2 = cos(x / 2)^2, and the floor blended in as a weighted average."""
    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    if step < warmup_steps:
        return (step + 1) / warmup_steps * base_lr
    progress = min(1.0, (step - warmup_steps) / (total_steps - warmup_steps))
    weight = math.cos(math.pi * progress / 2) ** 2  # 1 at the peak, 0 at the end
    return float(weight * base_lr + (1.0 - weight) * min_lr)
