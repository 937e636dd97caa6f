"""The cosine decays to 0 and ignores min_lr until after total_steps, where the rate jumps up to min_lr.

Overrides: lr_at
Source: OpenBMB/BMTrain bmtrain/lr_scheduler/cosine.py (start_lr * 0.5 * (1 + cos(progress * pi)), no floor)
"""


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    if step < warmup_steps:
        return base_lr * ((step + 1) / warmup_steps)
    if step > total_steps:
        return float(min_lr)
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return base_lr * 0.5 * (1.0 + math.cos(math.pi * progress))
