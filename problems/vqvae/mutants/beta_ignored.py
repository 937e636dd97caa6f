"""This is what you get when beta is ignored: the commitment loss is the plain mean squared distance.

Overrides: vq_loss
"""


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    check_beta(beta)
    chosen = codebook[indices]
    return ((z_e.detach() - chosen) ** 2).mean(), ((z_e - chosen.detach()) ** 2).mean()
