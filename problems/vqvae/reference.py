"""Reference solution for the VQ-VAE problem. Trusted: it runs in the judge's process. Learners read it on the
Solution page once they solve the problem or give up."""

import torch

from helpers import check_beta, check_indices, check_latents


def quantize(z_e, codebook):
    """(z_q, indices): the nearest codebook row for every row of z_e, passed on with a straight-through gradient."""
    check_latents(z_e, codebook)
    indices = _nearest(z_e.detach(), codebook.detach())
    chosen = codebook.detach()[indices]  # [N, D]
    # Forward: the codebook rows. Backward: the identity into z_e, nothing into the codebook.
    z_q = z_e + (chosen - z_e).detach()
    return z_q, indices


def _nearest(z, codebook):
    """argmin over k of ||z_i - e_k||^2 from the differences themselves (no cancellation); argmin keeps the first
    of equal distances, so ties go to the smallest index."""
    work = z.to(torch.float64)
    distances = ((work[:, None, :] - codebook.to(torch.float64)[None, :, :]) ** 2).sum(dim=2)  # [N, K]
    return distances.argmin(dim=1)


def vq_loss(z_e, codebook, indices, beta=0.25):
    """(codebook_loss, commitment_loss): mean squared distances between z_e and its codebook rows, each with the
    stop-gradient on the other side, the commitment term scaled by beta."""
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    chosen = codebook[indices]  # [N, D]; gradients flow back into the chosen rows
    codebook_loss = ((z_e.detach() - chosen) ** 2).mean()
    commitment_loss = weight * ((z_e - chosen.detach()) ** 2).mean()
    return codebook_loss, commitment_loss
