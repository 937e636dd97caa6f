"""The schedule is computed in float32 tensors and converted back, losing seven digits of precision.

Overrides: lr_at
"""

import torch


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    import torch

    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    s = torch.tensor(float(step), dtype=torch.float32)
    if step < warmup_steps:
        return float(base_lr * (s + 1) / warmup_steps)
    if step >= total_steps:
        return float(min_lr)
    progress = (s - warmup_steps) / (total_steps - warmup_steps)
    return float(min_lr + (base_lr - min_lr) * 0.5 * (1.0 + torch.cos(torch.pi * progress)))
