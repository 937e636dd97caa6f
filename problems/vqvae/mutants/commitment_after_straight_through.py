"""This is what you get when the losses are computed from the straight-through z_q instead of the codes: z_q carries the encoder's gradient, so the codebook is never trained.

Overrides: vq_loss
Source: andylolu2/jax-vqvae-gpt issue #2 (the commitment loss computed after patching the straight-through gradient)
"""


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    z_q = z_e + (codebook[indices] - z_e).detach()
    return ((z_e.detach() - z_q) ** 2).mean(), weight * ((z_e - z_q.detach()) ** 2).mean()
