"""This is what you get when logvar is clamped to [-30, 20] before the KL's closed form, as some public VAE code
does for numerical safety: every logvar inside that range gives the right KL, but a variance beyond it (logvar = 25)
is counted as if it were exp(20), and the KL comes out far too small.

Seen in: CompVis/latent-diffusion, ldm/modules/distributions/distributions.py (DiagonalGaussianDistribution clamps
logvar to [-30, 20]), and the same class in CompVis/taming-transformers.

Overrides: _kl_per_example
"""

import torch


def _kl_per_example(mu, logvar):
    logvar = torch.clamp(logvar, -30.0, 20.0)
    return -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)
