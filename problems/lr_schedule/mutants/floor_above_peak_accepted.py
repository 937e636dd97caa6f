"""min_lr above base_lr is accepted, which turns the decay into a climb.

Overrides: lr_at
"""


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min(min_lr, base_lr) if isinstance(min_lr, float) else min_lr)
    if step < warmup_steps:
        return base_lr * ((step + 1) / warmup_steps)
    if step >= total_steps:
        return float(min_lr)
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_lr + (base_lr - min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))
