"""This is what you get when the schedule is left in torch's default float32 instead of float64.

Overrides: linear_beta_schedule
"""

import torch


def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    check_schedule_args(T, beta_start, beta_end)
    return torch.linspace(beta_start, beta_end, T)
