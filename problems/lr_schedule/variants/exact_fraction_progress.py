"""Variant (correct): exact rational progress with fractions.Fraction, the cosine as a shifted sine."""

import math

from helpers import check_rates, check_step_counts


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    """Exact rational progress (fractions.Fraction), one float conversion at the end of each region."""
    from fractions import Fraction

    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    if step < warmup_steps:
        return float(Fraction(step + 1, warmup_steps) * Fraction(base_lr))
    if step >= total_steps:
        return float(min_lr)
    progress = Fraction(step - warmup_steps, total_steps - warmup_steps)
    return min_lr + (base_lr - min_lr) * (1 - math.sin(math.pi * float(progress) - math.pi / 2)) / 2
