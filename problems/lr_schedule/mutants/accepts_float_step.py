"""The step counts are not type-checked, so step=3.0 or step=True is silently accepted.

Overrides: lr_at
"""


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    check_rates(base_lr, min_lr)
    if step < 0 or warmup_steps < 0 or total_steps <= warmup_steps:
        raise ValueError("step counts out of range")
    if step < warmup_steps:
        return base_lr * ((step + 1) / warmup_steps)
    if step >= total_steps:
        return float(min_lr)
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_lr + (base_lr - min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))
