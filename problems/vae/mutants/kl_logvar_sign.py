"""This is what you get when the log-variance term of the KL has the wrong sign (1 - logvar instead of 1 + logvar).

Overrides: _kl_per_example
Source: FluxML/model-zoo pull request #147 (the sign of the log-sigma term in vae.jl's KL)
"""


def _kl_per_example(mu, logvar):
    return -0.5 * (1 - logvar - mu.pow(2) - logvar.exp()).sum(dim=1)
