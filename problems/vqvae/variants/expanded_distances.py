"""The usual implementation: distances expanded as ||z||^2 - 2 z.e + ||e||^2, F.mse_loss for the losses."""

import torch
import torch.nn.functional as F

from helpers import check_beta, check_indices, check_latents


def quantize(z_e, codebook):
    check_latents(z_e, codebook)
    distances = (z_e.detach() ** 2).sum(1, keepdim=True) - 2 * z_e.detach() @ codebook.detach().t() \
        + (codebook.detach() ** 2).sum(1)
    indices = torch.argmin(distances, dim=1)
    z_q = F.embedding(indices, codebook.detach())
    return z_e + (z_q - z_e).detach(), indices


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    beta = check_beta(beta)
    e = F.embedding(indices, codebook)
    return F.mse_loss(e, z_e.detach()), beta * F.mse_loss(z_e, e.detach())
