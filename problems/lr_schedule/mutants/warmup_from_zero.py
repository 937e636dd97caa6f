"""The warmup counts from zero, so the first update (step 0) has learning rate 0.

Overrides: lr_at
Source: huggingface/transformers src/transformers/optimization.py, _get_cosine_schedule_with_warmup_lr_lambda
(current_step / num_warmup_steps), quoted in https://github.com/meta-pytorch/torchtune/issues/242
"""


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    if step < warmup_steps:
        return base_lr * (step / warmup_steps)
    if step >= total_steps:
        return float(min_lr)
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_lr + (base_lr - min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))
