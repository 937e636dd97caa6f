"""This is what you get when x and the logits change places in the cross-entropy (binary_cross_entropy_with_logits(x, recon_logits)).

Overrides: elbo_loss
"""

import torch.nn.functional as F


def elbo_loss(x, recon_logits, mu, logvar):
    check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    check_latent(mu, logvar)
    check_data(x, recon_logits, mu)
    reconstruction = F.binary_cross_entropy_with_logits(x, recon_logits, reduction="none").flatten(1).sum(dim=1)
    return (reconstruction + _kl_per_example(mu, logvar)).mean()
