"""This is what you get when the 1 of abar_prev is appended at the end instead of put in front: abar_prev becomes abar of the NEXT step.

Overrides: _cumulative
Source: lucidrains/denoising-diffusion-pytorch issue #18 (alphas_cumprod_prev padded on the right instead of the left)
"""

import torch


def _cumulative(betas):
    betas = betas.double()
    alphas = 1 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_cumprod_prev = torch.cat([alphas_cumprod[1:], alphas_cumprod.new_ones(1)])
    return alphas, alphas_cumprod, alphas_cumprod_prev
