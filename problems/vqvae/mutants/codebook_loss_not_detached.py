"""This is what you get when z_e is not detached in the codebook loss: it then trains the encoder as well, on top of the commitment loss.

Overrides: vq_loss
"""


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    chosen = codebook[indices]
    return ((z_e - chosen) ** 2).mean(), weight * ((z_e - chosen.detach()) ** 2).mean()
