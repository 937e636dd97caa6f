"""Plain loops over rows and codes, a custom autograd.Function for the straight-through copy."""

import torch

from helpers import check_beta, check_indices, check_latents


class StraightThrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z_e, chosen):
        return chosen.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def quantize(z_e, codebook):
    check_latents(z_e, codebook)
    picks = []
    for row in z_e.detach():
        best, best_distance = 0, None
        for k, code in enumerate(codebook.detach()):
            distance = float(((row - code) ** 2).sum())
            if best_distance is None or distance < best_distance:
                best, best_distance = k, distance
        picks.append(best)
    indices = torch.tensor(picks, dtype=torch.int64, device=z_e.device)
    return StraightThrough.apply(z_e, codebook.detach()[indices]), indices


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    beta = check_beta(beta)
    chosen = torch.stack([codebook[k] for k in indices.tolist()])
    count = z_e.numel()
    codebook_loss = sum(((z.detach() - e) ** 2).sum() for z, e in zip(z_e, chosen, strict=True)) / count
    commitment_loss = beta * sum(((z - e.detach()) ** 2).sum() for z, e in zip(z_e, chosen, strict=True)) / count
    return codebook_loss, commitment_loss
