"""The cosine's progress is step / total_steps, measured from step 0 instead of from the end of warmup.

Overrides: lr_at
Source: https://github.com/huggingface/pytorch-image-models/issues/1242 (CosineLRScheduler without
warmup_prefix runs its cosine from step 0, so the rate has already decayed when warmup ends)
"""


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    if step < warmup_steps:
        return base_lr * ((step + 1) / warmup_steps)
    if step >= total_steps:
        return float(min_lr)
    progress = step / total_steps
    return min_lr + (base_lr - min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))
