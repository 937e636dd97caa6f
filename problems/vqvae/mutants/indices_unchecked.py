"""This is what you get when the indices are not validated: out-of-range or wrongly shaped indices fail with an indexing error, wrap around, or are broadcast.

Overrides: vq_loss
"""


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    weight = check_beta(beta)
    chosen = codebook[indices]
    return ((z_e.detach() - chosen) ** 2).mean(), weight * ((z_e - chosen.detach()) ** 2).mean()
