"""This is what you get when the squared distances are summed over the D dimensions and averaged over the batch (the paper's squared norm per example) instead of averaged over all N * D entries.

Overrides: vq_loss
Source: clementchadebec/benchmark_VAE pull request #125 (mean against summed squared error in the VQ losses)
"""


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    chosen = codebook[indices]
    return (((z_e.detach() - chosen) ** 2).sum(dim=1).mean(),
            weight * ((z_e - chosen.detach()) ** 2).sum(dim=1).mean())
