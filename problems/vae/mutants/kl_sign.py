"""This is what you get when the KL's leading minus sign is dropped: the loss rewards moving away from the prior.

Overrides: _kl_per_example
"""


def _kl_per_example(mu, logvar):
    return 0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)
