"""This is what you get when the cross-entropy is averaged over the pixels (reduction="mean") instead of summed: the KL then dominates the loss.

Overrides: elbo_loss
Source: keras-team/keras issue #6015 (the blog's mean binary_crossentropy against the example's sum)
"""


def elbo_loss(x, recon_logits, mu, logvar):
    check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    check_latent(mu, logvar)
    check_data(x, recon_logits, mu)
    reconstruction = _bce_with_logits(recon_logits, x).flatten(1).mean(dim=1)
    return (reconstruction + _kl_per_example(mu, logvar)).mean()
