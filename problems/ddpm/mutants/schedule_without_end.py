"""This is what you get when the schedule steps by (beta_end - beta_start) / T and never reaches beta_end (an arange, not a linspace).

Overrides: linear_beta_schedule
"""

import torch


def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    check_schedule_args(T, beta_start, beta_end)
    return beta_start + (beta_end - beta_start) * torch.arange(T, dtype=torch.float64) / T
