"""This is what you get when gaussian_kl sums over the batch instead of averaging: it grows with the batch size.

Overrides: gaussian_kl
"""


def gaussian_kl(mu, logvar):
    check_tensors(("mu", "logvar"), (mu, logvar))
    check_latent(mu, logvar)
    return _kl_per_example(mu, logvar).sum()
