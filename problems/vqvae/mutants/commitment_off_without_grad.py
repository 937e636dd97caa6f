"""This is what you get when beta = 0 returns a fresh zero for the commitment loss: the value is right, but the zero is not attached to z_e's graph, so loss.backward() on a sum that is only this term fails with "does not require grad", and a caller that checks requires_grad sees the commitment term vanish from the graph.

Overrides: vq_loss
"""

import torch


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = check_beta(beta)
    chosen = codebook[indices]
    codebook_loss = ((z_e.detach() - chosen) ** 2).mean()
    if weight == 0:
        return codebook_loss, torch.zeros((), dtype=z_e.dtype)  # no commitment: skip the computation
    return codebook_loss, weight * ((z_e - chosen.detach()) ** 2).mean()
