"""This is what you get when the squared errors are taken in float32 whatever the inputs' dtype (a .float() kept from mixed-precision training): float64 losses lose half their digits.

Overrides: vq_loss
"""


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    z, chosen = z_e.float(), codebook[indices].float()
    codebook_loss = ((z.detach() - chosen) ** 2).mean().to(z_e.dtype)
    commitment_loss = weight * ((z - chosen.detach()) ** 2).mean().to(z_e.dtype)
    return codebook_loss, commitment_loss
