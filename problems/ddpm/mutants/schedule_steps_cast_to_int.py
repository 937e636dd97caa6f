"""This is what you get when T is passed through int(T) before it is checked: 1000.0, 12.7, True and a 0-d tensor all become step counts (12.7 silently loses its fraction) instead of raising TypeError.

Overrides: linear_beta_schedule
Source: lucidrains/denoising-diffusion-pytorch, denoising_diffusion_pytorch/denoising_diffusion_pytorch.py (self.num_timesteps = int(timesteps))
"""

import torch


def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    T = int(T)
    check_schedule_args(T, beta_start, beta_end)
    return torch.linspace(beta_start, beta_end, T, dtype=torch.float64)
