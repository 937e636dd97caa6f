"""torch.cdist for the nearest code, the losses computed in float64 and rounded back."""

import torch

from helpers import check_beta, check_indices, check_latents


def quantize(z_e, codebook):
    check_latents(z_e, codebook)
    with torch.no_grad():
        indices = torch.cdist(z_e.double(), codebook.double()).argmin(dim=1)
    chosen = codebook.detach().index_select(0, indices)
    return chosen + (z_e - z_e.detach()), indices


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    beta = check_beta(beta)
    e = codebook.double().index_select(0, indices)
    z = z_e.double()
    codebook_loss = (z.detach() - e).pow(2).sum() / z.numel()
    commitment_loss = beta * (z - e.detach()).pow(2).sum() / z.numel()
    return codebook_loss.to(z_e.dtype), commitment_loss.to(z_e.dtype)
