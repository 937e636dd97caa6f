"""This is what you get when the posterior uses alpha_t = 1 - beta_t where the cumulative product abar_t belongs.

Overrides: _cumulative
Source: yang-song/score_sde_pytorch issue #73 (alpha_i = 1 - beta_i in the code where the paper's alpha_i is the cumulative product)
"""

import torch


def _cumulative(betas):
    betas = betas.double()
    alphas = 1 - betas
    alphas_prev = torch.cat([alphas.new_ones(1), alphas[:-1]])
    return alphas, alphas, alphas_prev
