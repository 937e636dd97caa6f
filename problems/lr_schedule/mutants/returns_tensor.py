"""The rate is computed with torch and returned as a 0-d tensor instead of a Python float.

Overrides: lr_at
"""

import torch


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    import torch

    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    if step < warmup_steps:
        return torch.tensor(base_lr * ((step + 1) / warmup_steps), dtype=torch.float64)
    if step >= total_steps:
        return torch.tensor(min_lr, dtype=torch.float64)
    progress = torch.tensor((step - warmup_steps) / (total_steps - warmup_steps), dtype=torch.float64)
    return min_lr + (base_lr - min_lr) * 0.5 * (1.0 + torch.cos(torch.pi * progress))
