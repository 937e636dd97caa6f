"""This is what you get when logvar is treated as log sigma in the KL (sigma^2 = exp(2 logvar)) while the sample uses it as log sigma^2.

Overrides: _kl_per_example
"""

import torch


def _kl_per_example(mu, logvar):
    return -0.5 * (1 + 2 * logvar - mu.pow(2) - torch.exp(2 * logvar)).sum(dim=1)
