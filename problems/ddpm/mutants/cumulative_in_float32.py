"""This is what you get when the cumulative products are computed in the dtype of float32 betas: 1 - abar for the first steps loses most of its digits.

Overrides: _cumulative
"""

import torch


def _cumulative(betas):
    alphas = 1 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_cumprod_prev = torch.cat([alphas_cumprod.new_ones(1), alphas_cumprod[:-1]])
    return alphas, alphas_cumprod, alphas_cumprod_prev
