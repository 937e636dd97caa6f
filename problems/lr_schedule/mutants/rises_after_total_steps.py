"""The cosine keeps running past total_steps, so the learning rate climbs back up after the end.

Overrides: lr_at
Source: https://github.com/Tencent-Hunyuan/UniRL/pull/223 (the rate reached zero early and increased again);
huggingface/transformers src/transformers/optimization.py only clamps below 0, not past the end
"""


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    if step < warmup_steps:
        return base_lr * ((step + 1) / warmup_steps)
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_lr + (base_lr - min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))
