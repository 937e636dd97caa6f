"""This is what you get when exp(logvar) is used as the standard deviation: it is the variance, sigma is exp(logvar / 2).

Overrides: _std
Source: rachtsingh/ibp_vae issue #3 (reparametrize_gaussian returned mu + noise * logvar.exp()); also keras-team/keras issue #3283
"""

import torch


def _std(logvar):
    return torch.exp(logvar)
