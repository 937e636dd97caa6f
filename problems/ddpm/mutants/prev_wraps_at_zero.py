"""This is what you get when abar_prev is read as alphas_cumprod[t - 1]: right for t >= 1, but at t = 0 the index -1 reads the last step instead of the empty product 1.

Overrides: _cumulative
"""

import torch


def _cumulative(betas):
    betas = betas.double()
    alphas = 1 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_cumprod_prev = torch.roll(alphas_cumprod, 1)  # alphas_cumprod[t - 1] for every t, -1 included
    return alphas, alphas_cumprod, alphas_cumprod_prev
