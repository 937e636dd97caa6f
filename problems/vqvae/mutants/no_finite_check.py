"""This is what you get when the inputs are checked for kind and shape but not for nan and inf: the losses come back nan instead of an error.

Overrides: vq_loss
"""

import torch


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e.nan_to_num(), codebook.nan_to_num()) if isinstance(z_e, torch.Tensor) and isinstance(
        codebook, torch.Tensor) else check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    chosen = codebook[indices]
    return ((z_e.detach() - chosen) ** 2).mean(), weight * ((z_e - chosen.detach()) ** 2).mean()
