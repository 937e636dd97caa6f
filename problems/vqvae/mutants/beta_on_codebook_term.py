"""This is what you get when beta weights the codebook term instead of the commitment term.

Overrides: vq_loss
Source: CompVis/taming-transformers issue #57 (beta multiplied the second term of the loss; fixed behind legacy=False), also huggingface/diffusers issue #8226
"""


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    chosen = codebook[indices]
    return weight * ((z_e.detach() - chosen) ** 2).mean(), ((z_e - chosen.detach()) ** 2).mean()
