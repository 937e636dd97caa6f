"""Reference learning-rate schedule: linear warmup, then cosine decay to a floor."""

import math

from helpers import check_rates, check_step_counts


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    if step < warmup_steps:
        # step s is the (s + 1)-th warmup step: base_lr / warmup_steps at step 0, base_lr at warmup_steps - 1.
        # The int / int ratio first (correctly rounded, in (0, 1]): base_lr * (step + 1) overflows for
        # base_lr = 1e300 and huge steps, base_lr / warmup_steps underflows for base_lr = 1e-300.
        return base_lr * ((step + 1) / warmup_steps)
    if step >= total_steps:
        return float(min_lr)
    progress = (step - warmup_steps) / (total_steps - warmup_steps)  # 0 at the peak, 1 at total_steps; int / int
    cosine = 0.5 * (1.0 + math.cos(math.pi * progress))  # 1 -> 0
    return min_lr + (base_lr - min_lr) * cosine
