"""This is what you get when the stop-gradients of the two terms are swapped: the codebook loss trains the encoder and the commitment loss trains the codebook.

Overrides: vq_loss
Source: andylolu2/jax-vqvae-gpt issue #3 (inputs and quantize flipped inside the two stop-gradients)
"""


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    chosen = codebook[indices]
    return ((z_e - chosen.detach()) ** 2).mean(), weight * ((z_e.detach() - chosen) ** 2).mean()
