"""Variant (correct): torch float64 arithmetic, returned with .item()."""

from helpers import check_rates, check_step_counts


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    """torch in float64 for the arithmetic, then .item(): the precision of Python floats."""
    import torch

    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    base = torch.tensor(base_lr, dtype=torch.float64)
    floor = torch.tensor(min_lr, dtype=torch.float64)
    if step < warmup_steps:
        return (base * ((step + 1) / warmup_steps)).item()
    progress = torch.tensor((step - warmup_steps) / (total_steps - warmup_steps), dtype=torch.float64)
    progress = progress.clamp(max=1.0)
    return (floor + (base - floor) * (1 + torch.cos(torch.pi * progress)) / 2).item()
