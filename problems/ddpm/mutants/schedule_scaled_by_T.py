"""This is what you get when both ends of the schedule are multiplied by 1000 / T (improved-diffusion's convention), which this problem does not use.

Overrides: linear_beta_schedule
Source: openai/improved-diffusion's get_named_beta_schedule("linear"), as copied in dfdx/equilibrium, old/snippets.py (scale = 1000 / num_diffusion_timesteps)
"""

import torch


def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    check_schedule_args(T, beta_start, beta_end)
    scale = 1000 / T
    return torch.linspace(scale * beta_start, scale * beta_end, T, dtype=torch.float64)
