"""This is what you get when the KL is subtracted from the reconstruction cost: the negative ELBO adds it.

Overrides: elbo_loss
"""


def elbo_loss(x, recon_logits, mu, logvar):
    check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    check_latent(mu, logvar)
    check_data(x, recon_logits, mu)
    reconstruction = _bce_with_logits(recon_logits, x).flatten(1).sum(dim=1)
    return (reconstruction - _kl_per_example(mu, logvar)).mean()
