"""This is what you get when the code is not detached in the commitment loss: it then moves the codebook too, by beta times the codebook loss's gradient.

Overrides: vq_loss
"""


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    chosen = codebook[indices]
    return ((z_e.detach() - chosen) ** 2).mean(), weight * ((z_e - chosen) ** 2).mean()
